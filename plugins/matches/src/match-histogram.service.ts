import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { badRequest, TOKENS } from '@filigrane/core';
import type { MatchFilters } from './match-filters.js';
import { FROM, MatchQueryService } from './match-query.service.js';

/** What a histogram is cut by: the REST route's choices (the GraphQL enums name the same values). */
export const HISTOGRAM_INTERVALS = ['day', 'week', 'month'] as const;
export const HISTOGRAM_GROUPS = ['site', 'country', 'source', 'watermarked', 'kind', 'media'] as const;
export const HISTOGRAM_DATES = ['date_created', 'date_updated', 'page.date_published'] as const;
export type HistogramInterval = (typeof HISTOGRAM_INTERVALS)[number];
export type HistogramGroup = (typeof HISTOGRAM_GROUPS)[number];
export type HistogramDate = (typeof HISTOGRAM_DATES)[number];

export interface HistogramRequest {
  interval?: HistogramInterval;
  groupBy?: HistogramGroup;
  /** IANA time zone the days, weeks (Monday) and months are cut in. */
  timeZone: string;
  date: HistogramDate;
  /** ISO date (midnight in timeZone) or date-time; inclusive. */
  from?: string;
  /** ISO date (midnight in timeZone) or date-time; exclusive. */
  to?: string;
  /** Groups kept (the largest); the rest are counted in `otherCount`. */
  limit: number;
}

export interface HistogramBucket {
  start: Date | null;
  end: Date | null;
  key: string | null;
  label: string | null;
  count: number;
}

export interface Histogram {
  total: number;
  otherCount: number;
  timeZone: string;
  buckets: HistogramBucket[];
}

/** Time slots one histogram may have (a year and a half of days). */
export const MAX_SLOTS = 550;

const DATE_COLUMNS: Record<HistogramDate, string> = { date_created: 'm.date_created', date_updated: 'm.date_updated', 'page.date_published': 'm.page_date_published' };
const GROUPS: Record<HistogramGroup, { key: string; label: string }> = {
  site: { key: 'm.site_id::text', label: 'max(s.domain)' },
  country: { key: 's.country', label: 'NULL' },
  source: { key: 'm.source', label: 'NULL' },
  watermarked: { key: 'm.watermarked::text', label: 'NULL' },
  kind: { key: 'm.kind', label: 'NULL' },
  media: { key: 'm.media_id::text', label: 'max(md.path)' },
};

/** A time zone both JavaScript and PostgreSQL know (IANA names, `UTC`). */
export function checkTimeZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw badRequest('invalid', { timeZone: [`Unknown time zone "${tz.slice(0, 64)}"; use an IANA name such as Europe/Paris or UTC.`] });
  }
}

/**
 * Match counts by time slot and/or group in two statements (counts, then the time slots to fill
 * with zeros), whatever the number of matches: a 30-day chart is one GraphQL field, not 31 aliases.
 */
@injectable()
export class MatchHistogramService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(MatchQueryService) private readonly query: MatchQueryService,
  ) {}

  async histogram(accountId: number, filters: MatchFilters, r: HistogramRequest): Promise<Histogram> {
    if (!r.interval && !r.groupBy) throw badRequest('invalid', { interval: ['Give an interval (day, week, month), a groupBy, or both.'] });
    const params: unknown[] = [];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const where = await this.query.where(accountId, filters, params);
    const column = DATE_COLUMNS[r.date];
    // Added on first use: PostgreSQL refuses a parameter the statement does not use.
    let tzParam: string | null = null;
    const tz = () => (tzParam ??= p(r.timeZone));
    // A date is midnight in the chart's time zone; a date-time is the instant it names.
    const instant = (v: string, field: string) => {
      if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `(${p(v)}::timestamp AT TIME ZONE ${tz()})`;
      const d = new Date(v);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(d.getTime())) throw badRequest('invalid', { [field]: [`${field} is an ISO 8601 date or date-time.`] });
      return `${p(d.toISOString())}::timestamptz`;
    };
    const from = r.from !== undefined ? instant(r.from, 'from') : null;
    const to = r.to !== undefined ? instant(r.to, 'to') : null;
    if (from) where.push(`${column} >= ${from}`);
    if (to) where.push(`${column} < ${to}`);
    if (r.interval) where.push(`${column} IS NOT NULL`);
    const slot = r.interval ? `(date_trunc('${r.interval}', ${column} AT TIME ZONE ${tz()}) AT TIME ZONE ${tz()})` : 'NULL::timestamptz';
    const group = r.groupBy ? GROUPS[r.groupBy] : { key: 'NULL::text', label: 'NULL' };
    const rows: { start: Date | null; key: string | null; label: string | null; n: number }[] = await this.db.query(
      `SELECT ${slot} AS start, ${group.key} AS key, ${group.label} AS label, count(*)::int AS n ${FROM} WHERE ${where.join(' AND ')} GROUP BY 1, 2`,
      params,
    );
    const total = rows.reduce((sum, row) => sum + row.n, 0);

    // The largest groups, in order of size (then key); the others are summed apart.
    const sizes = new Map<string | null, { n: number; label: string | null }>();
    for (const row of rows) {
      const g = sizes.get(row.key) ?? { n: 0, label: row.label };
      g.n += row.n;
      sizes.set(row.key, g);
    }
    const kept = [...sizes.entries()].sort((a, b) => b[1].n - a[1].n || String(a[0]).localeCompare(String(b[0]))).slice(0, r.groupBy ? r.limit : undefined);
    const keptKeys = new Set(kept.map(([k]) => k));
    const otherCount = rows.filter((row) => !keptKeys.has(row.key)).reduce((sum, row) => sum + row.n, 0);

    if (!r.interval) {
      return { total, otherCount, timeZone: r.timeZone, buckets: kept.map(([key, g]) => ({ start: null, end: null, key, label: g.label, count: g.n })) };
    }
    const slots = await this.slots(r, rows.map((row) => row.start!));
    const counts = new Map(rows.map((row) => [`${new Date(row.start!).toISOString()}|${row.key}`, row.n]));
    const groups = r.groupBy ? kept : [[null, { n: total, label: null }] as const];
    const buckets: HistogramBucket[] = [];
    for (const s of slots) {
      for (const [key, g] of groups) buckets.push({ start: s.start, end: s.end, key, label: g.label, count: counts.get(`${s.start.toISOString()}|${key}`) ?? 0 });
    }
    return { total, otherCount, timeZone: r.timeZone, buckets };
  }

  /** Every slot from `from` (or the first count) to `to` (or the last), each with its end, cut in the time zone. */
  private async slots(r: HistogramRequest, starts: Date[]): Promise<{ start: Date; end: Date }[]> {
    const params: unknown[] = [r.timeZone];
    const bound = (v: string | undefined, fallback: Date | undefined, end: boolean) => {
      if (v === undefined) {
        if (!fallback) return null;
        params.push(fallback.toISOString());
        return `$${params.length}::timestamptz`;
      }
      params.push(v);
      const at = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `($${params.length}::timestamp AT TIME ZONE $1)` : `$${params.length}::timestamptz`;
      // `to` is exclusive: the last slot is the one holding the instant just before it.
      return end ? `(${at} - interval '1 microsecond')` : at;
    };
    const times = starts.map((d) => new Date(d).getTime());
    const lo = bound(r.from, times.length ? new Date(Math.min(...times)) : undefined, false);
    const hi = bound(r.to, times.length ? new Date(Math.max(...times)) : undefined, r.to !== undefined);
    if (!lo || !hi) return [];
    const step = `interval '1 ${r.interval}'`;
    const slots: { start: Date; end: Date }[] = await this.db.query(
      `SELECT g AT TIME ZONE $1 AS start, (g + ${step}) AT TIME ZONE $1 AS end
       FROM generate_series(date_trunc('${r.interval}', ${lo} AT TIME ZONE $1), date_trunc('${r.interval}', ${hi} AT TIME ZONE $1), ${step}) g
       LIMIT ${MAX_SLOTS + 1}`,
      params,
    );
    if (slots.length > MAX_SLOTS) throw badRequest('invalid', { interval: [`More than ${MAX_SLOTS} ${r.interval}s: narrow from/to or take a longer interval.`] });
    return slots.map((s) => ({ start: new Date(s.start), end: new Date(s.end) }));
  }
}
