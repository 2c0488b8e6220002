import {
  badRequest,
  parseBoolean,
  parseDateFilters,
  queryString,
  type DateCondition,
  type QueryValue,
} from '@filigrane/core';

/** Match filters, whatever the API version that parsed them. */
export interface MatchFilters {
  kind?: 'web' | 'press' | 'credit';
  id?: number;
  created: DateCondition[];
  watermarked?: boolean;
  exclusive?: boolean;
  excludeBlacklisted: boolean;
  siteId?: number;
  siteName?: string;
  siteSuffix?: string;
  siteDomain?: string;
  mediaId?: number;
  mediaPath?: string;
  export?: boolean;
  tags?: string[];
  sessions?: number[];
  pageUrl?: string;
  pagePublished: DateCondition[];
}

const PAGING = ['cursor', 'page_size', 'format'];

function list(query: Record<string, QueryValue>, name: string): string[] | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  return values.length ? values : undefined;
}

function int(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw badRequest('invalid_filter', { [name]: [`"${raw}" is not an id.`] });
  return Number(raw);
}

function ints(values: string[] | undefined, name: string): number[] | undefined {
  return values?.map((v) => int(v, name)!);
}

function refuseUnknown(query: Record<string, QueryValue>, allowed: string[]): void {
  const unknown = Object.keys(query).filter((k) => !allowed.includes(k) && !PAGING.includes(k));
  if (unknown.length) throw badRequest('invalid_filter', Object.fromEntries(unknown.map((k) => [k, [`Unknown filter "${k}".`]])));
}

const V4_DATE_OPS = ['', '__gte', '__lte', '__gt', '__lt'];

/** GET /api/v4/matches/ filters. */
export function parseV4Filters(query: Record<string, QueryValue>): MatchFilters {
  refuseUnknown(query, [
    'id', ...V4_DATE_OPS.map((o) => `date_created${o}`), 'watermarked', 'site.id', 'site.name', 'site.suffix', 'site.domain',
    'media.id', 'media.path', 'blacklist', 'export', 'tags', 'sessions', 'page.url', ...V4_DATE_OPS.map((o) => `page.date_published${o}`),
  ]);
  const q = (n: string) => queryString(query, n);
  return {
    id: int(q('id'), 'id'),
    created: parseDateFilters(query, 'date_created', '__'),
    watermarked: parseBoolean(q('watermarked'), 'watermarked'),
    excludeBlacklisted: parseBoolean(q('blacklist'), 'blacklist') ?? false,
    siteId: int(q('site.id'), 'site.id'),
    siteName: q('site.name'),
    siteSuffix: q('site.suffix')?.toLowerCase(),
    siteDomain: q('site.domain')?.toLowerCase(),
    mediaId: int(q('media.id'), 'media.id'),
    mediaPath: q('media.path'),
    export: parseBoolean(q('export'), 'export'),
    tags: list(query, 'tags'),
    sessions: ints(list(query, 'sessions'), 'sessions'),
    pageUrl: q('page.url'),
    pagePublished: parseDateFilters(query, 'page.date_published', '__'),
  };
}

const V3_DATES = ['date', 'date_lte', 'date_gte', 'date_lt', 'date_gt'];

/** GET /api/v3/matches/<kind>/ filters. */
export function parseV3Filters(kind: 'web' | 'press' | 'credit', query: Record<string, QueryValue>): MatchFilters {
  const extra = kind === 'web' ? ['watermarked', 'exclusive', 'blacklist', 'session_id'] : kind === 'press' ? ['watermarked'] : ['blacklist'];
  refuseUnknown(query, [...V3_DATES, ...extra]);
  const q = (n: string) => queryString(query, n);
  const session = int(q('session_id'), 'session_id');
  return {
    kind,
    created: parseDateFilters(query, 'date', '_'),
    watermarked: parseBoolean(q('watermarked'), 'watermarked'),
    exclusive: parseBoolean(q('exclusive'), 'exclusive'),
    excludeBlacklisted: parseBoolean(q('blacklist'), 'blacklist') ?? false,
    sessions: session !== undefined ? [session] : undefined,
    pagePublished: [],
  };
}
