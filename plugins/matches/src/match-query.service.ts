import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import type { MediaCsvFields } from './match-view.js';
import {
  decodeCursor,
  filterSql,
  keysetBatches,
  returnedRows,
  TOKENS,
  type Cursor,
  type CursorKeyType,
  type ExtensionRegistry,
  type FilterCondition,
  type FilterFields,
  type MediaReader,
  type MediaRecord,
  type QueryValue,
} from '@filigrane/core';
import { BlacklistService } from '@filigrane/plugin-blacklist';
import { MATCH_FILTERS } from './match-filter-extension.js';
import { byId, parseV4Filters, V4_FIELDS, type MatchFilters } from './match-filters.js';
import type { SightedImage, VideoAlignment } from './match.entity.js';

/** A match row joined with its site and media, as the views need it. */
/** The distinct media of a batch of rows (credit matches have none). */
const mediaIdsOf = (rows: MatchRow[]) => [...new Set(rows.filter((r) => r.media_id !== null).map((r) => Number(r.media_id)))];

export interface MatchRow {
  id: string;
  account_id: number;
  /** null for credit matches. */
  media_id: string | null;
  kind: 'web' | 'press' | 'credit';
  watermarked: boolean;
  exclusive: boolean | null;
  export: boolean;
  tags: string[];
  sessions: number[];
  host: string | null;
  page_url: string;
  page: Record<string, unknown>;
  query_url: string;
  query_width: number | null;
  query_height: number | null;
  query_format: string | null;
  press: { issueName: string; issueDate: string; pageNumber: number } | null;
  credit: string | null;
  image: SightedImage | null;
  video: VideoAlignment | null;
  /** Where the copy and the original overlap (MatchRegionValue), when known. */
  region?: { copy: number[]; original: number[] } | null;
  date_created: Date;
  date_updated: Date;
  site_id: number | null;
  site_name: string | null;
  site_domain: string | null;
  site_suffix: string | null;
  site_country: string | null;
}

/** What another plugin may know of a match it acts on (ids as the REST API shows them). */
export interface MatchRef {
  id: string;
  mediaId: string | null;
  kind: 'web' | 'press' | 'credit';
  /** Lower-case host of the page (or of the image when no page): null for press matches. */
  host: string | null;
  pageUrl: string | null;
  imageUrl: string;
  siteDomain: string | null;
  dateCreated: Date;
  /** The last sighting. */
  dateUpdated: Date;
}

/**
 * Which matches an action is about: these ids, the matches of a filter (GET /api/v4/matches/'s
 * query string, as parsed there), or both (their intersection). Only the caller's matches count.
 */
export interface MatchSelection {
  ids?: string[];
  /** The filter language of GET /api/v4/matches/ (`{"site.domain__in": "a.com,b.com", "tags": "x"}`). */
  query?: Record<string, QueryValue>;
}

export interface MatchPage {
  rows: MatchRow[];
  count: number;
  next: Cursor | null;
  previous: Cursor | null;
}

export const FROM = 'FROM matches m LEFT JOIN sites s ON s.id = m.site_id LEFT JOIN media_catalog md ON md.id = m.media_id';
const SELECT = `SELECT m.*, s.name AS site_name, s.domain AS site_domain, s.suffix AS site_suffix, s.country AS site_country ${FROM}`;

/** A match list's cursor: the boundary row's (date_created, id). */
const CURSOR_KEY: readonly CursorKeyType[] = ['timestamp', 'id'];

/** Match listings: filters, newest first, cursor pagination (stable while new matches arrive). */
@injectable()
export class MatchQueryService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(BlacklistService) private readonly blacklist: BlacklistService,
    @inject(TOKENS.MediaReader) private readonly media: MediaReader,
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
  ) {}

  private contributed: FilterFields | null = null;

  /** The filters other plugins contribute (MATCH_FILTERS), checked once: a built-in name is a boot mistake. */
  contributedFields(): FilterFields {
    if (this.contributed) return this.contributed;
    const fields: FilterFields = {};
    for (const { pluginId, value } of this.extensions.entries(MATCH_FILTERS)) {
      if (Object.hasOwn(V4_FIELDS, value.name) || Object.hasOwn(fields, value.name)) {
        throw new Error(`plugin "${pluginId}" contributes the match filter "${value.name}", which already exists`);
      }
      fields[value.name] = value.field;
    }
    return (this.contributed = fields);
  }

  /**
   * SQL true when some match satisfies contributed filter conditions (MATCH_FILTERS, as parsed with
   * contributedFields()): how another plugin's collection filters on them (aggregations keep the groups
   * with such a match). `correlate` relates the match row `m` to the caller's row through
   * MATCH_ROW_CONTRACT columns only; the matches table stays this plugin's to name.
   */
  someMatchSql(conditions: FilterCondition[], correlate: string, params: unknown[]): string {
    return `EXISTS (SELECT 1 FROM matches m WHERE ${correlate} AND ${filterSql(conditions, this.contributedFields(), params).join(' AND ')})`;
  }

  /** GET /api/v4/matches/ filters from a query string, the contributed ones included (400 invalid_filter on a mistake). */
  v4Filters(query: Record<string, QueryValue>): MatchFilters {
    return parseV4Filters(query, this.contributedFields());
  }

  /**
   * The account's v4 matches a selection names (the list's filter query: `site.domain=x.com`,
   * `review_state__in=new,unsure`...; and/or ids), in id order from `afterId`: what bulk actions and
   * other plugins walk, batch after batch. Ids are those the REST API shows.
   */
  async refs(accountId: number, selection: MatchSelection, options: { afterId?: string; limit?: number } = {}): Promise<MatchRef[]> {
    const params: unknown[] = [];
    const where = await this.selectionWhere(accountId, selection, params);
    if (options.afterId !== undefined) {
      params.push(options.afterId);
      where.push(`m.id > $${params.length}::bigint`);
    }
    params.push(Math.max(1, Math.min(options.limit ?? 1000, 10_000)));
    const rows: { id: string; media_id: string | null; kind: MatchRef['kind']; host: string | null; page_url: string; query_url: string; site_domain: string | null; date_created: Date; date_updated: Date }[] =
      await this.db.query(
        `SELECT m.id::text AS id, m.media_id::text AS media_id, m.kind, m.host, m.page_url, m.query_url, s.domain AS site_domain, m.date_created, m.date_updated
         ${FROM} WHERE ${where.join(' AND ')} ORDER BY m.id LIMIT $${params.length}`,
        params,
      );
    return rows.map((r) => ({
      id: r.id,
      mediaId: r.media_id,
      kind: r.kind,
      host: r.host,
      pageUrl: r.page_url || null,
      imageUrl: r.query_url,
      siteDomain: r.site_domain,
      dateCreated: new Date(r.date_created),
      dateUpdated: new Date(r.date_updated),
    }));
  }

  /** How many of the account's v4 matches a selection names. */
  async count(accountId: number, selection: MatchSelection): Promise<number> {
    const params: unknown[] = [];
    const where = await this.selectionWhere(accountId, selection, params);
    const rows: { n: number }[] = await this.db.query(`SELECT count(*)::int AS n ${FROM} WHERE ${where.join(' AND ')}`, params);
    return rows[0]!.n;
  }

  /**
   * The WHERE conditions of a selection (over FROM's m, s, md), parameters appended: the listing's
   * filters (contributed ones included), narrowed to `ids` when given. Walks, counts and bulk edits share it.
   */
  async selectionWhere(accountId: number, { ids, query }: MatchSelection, params: unknown[]): Promise<string[]> {
    const where = await this.where(accountId, this.v4Filters(query ?? {}), params);
    if (ids !== undefined) {
      params.push(ids);
      where.push(`m.id = ANY($${params.length}::bigint[])`);
    }
    return where;
  }

  /** The WHERE conditions of a listing (over FROM's m, s, md), parameters appended to `params`: bulk edits and histograms share them. */
  async where(accountId: number, f: MatchFilters, params: unknown[]): Promise<string[]> {
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const w = [`m.account_id = ${p(accountId)}`];
    // v4 matches are media found somewhere: credit matches (no media) are listed by v3 only.
    w.push(f.kind ? `m.kind = ${p(f.kind)}` : `m.kind <> 'credit'`);
    if (f.id !== undefined) w.push(`m.id = ${p(f.id)}`);
    w.push(...filterSql(f.conditions, f.fields, params));
    if (f.excludeBlacklisted) {
      const domains = await this.blacklist.list(accountId);
      if (domains.length) {
        const d = p(domains);
        w.push(`NOT (COALESCE(m.host, '') = ANY(${d}::text[]) OR EXISTS (SELECT 1 FROM unnest(${d}::text[]) b WHERE m.host LIKE '%.' || b))`);
      }
    }
    return w;
  }

  /**
   * `offset` (from `page`) applies only without a cursor: a client paging by number gets that page,
   * and the links it is given are cursors from there.
   */
  async list(accountId: number, filters: MatchFilters, rawCursor: string | undefined, pageSize: number, offset = 0): Promise<MatchPage> {
    const cursor = decodeCursor(rawCursor, CURSOR_KEY);
    const params: unknown[] = [];
    const where = await this.where(accountId, filters, params);
    const countRows: { n: number }[] = await this.db.query(`SELECT count(*)::int AS n ${FROM} WHERE ${where.join(' AND ')}`, params);
    const pageParams = [...params];
    const pageWhere = [...where];
    const back = cursor?.dir === 'p';
    if (cursor) {
      pageParams.push(new Date(String(cursor.key[0])), Number(cursor.key[1]));
      const a = `$${pageParams.length - 1}`;
      const b = `$${pageParams.length}`;
      pageWhere.push(back ? `(m.date_created, m.id) > (${a}, ${b})` : `(m.date_created, m.id) < (${a}, ${b})`);
    }
    const skip = cursor ? 0 : offset;
    pageParams.push(pageSize + 1, skip);
    const order = back ? 'ASC' : 'DESC';
    const rows: MatchRow[] = await this.db.query(
      `${SELECT} WHERE ${pageWhere.join(' AND ')} ORDER BY m.date_created ${order}, m.id ${order} LIMIT $${pageParams.length - 1} OFFSET $${pageParams.length}`,
      pageParams,
    );
    const more = rows.length > pageSize;
    const page = rows.slice(0, pageSize);
    if (back) page.reverse();
    const keyOf = (r: MatchRow) => [new Date(r.date_created).toISOString(), Number(r.id)];
    const first = page[0];
    const last = page[page.length - 1];
    return {
      rows: page,
      count: countRows[0]!.n,
      next: last && (back || more) ? { key: keyOf(last), dir: 'n' } : null,
      previous: first && (back ? more : cursor !== null || skip > 0) ? { key: keyOf(first), dir: 'p' } : null,
    };
  }

  /**
   * Every match for the filters (format=csv), newest first, in batches: a keyset walk over the
   * (account, date_created, id) index, so an export of any size keeps memory flat.
   */
  async *exportBatches(accountId: number, filters: MatchFilters, onlyExportable: boolean, batchSize = 2000): AsyncGenerator<MatchRow[]> {
    const params: unknown[] = [];
    const where = await this.where(accountId, filters, params);
    if (onlyExportable) where.push('m.export');
    const batch = (after: MatchRow | null): Promise<MatchRow[]> => {
      const batchParams = [...params];
      const batchWhere = [...where];
      if (after) {
        batchParams.push(after.date_created, after.id);
        batchWhere.push(`(m.date_created, m.id) < ($${batchParams.length - 1}, $${batchParams.length})`);
      }
      return this.db.query(`${SELECT} WHERE ${batchWhere.join(' AND ')} ORDER BY m.date_created DESC, m.id DESC LIMIT ${Number(batchSize)}`, batchParams);
    };
    yield* keysetBatches(batch, batchSize);
  }

  /** One match of the account (no count, no cursor: a single indexed lookup). */
  async get(accountId: number, id: number, kind?: MatchFilters['kind']): Promise<MatchRow | null> {
    const params: unknown[] = [];
    const where = await this.where(accountId, byId(id, kind), params);
    const rows: MatchRow[] = await this.db.query(`${SELECT} WHERE ${where.join(' AND ')} LIMIT 1`, params);
    return rows[0] ?? null;
  }

  /** The account's v4 matches among these ids (REST's ids; others absent), by id: one query for a list's relations. */
  async getMany(accountId: number, ids: readonly string[]): Promise<Map<string, MatchRow>> {
    const wanted = [...new Set(ids.filter((id) => /^\d{1,15}$/.test(id)))];
    if (!wanted.length) return new Map();
    const params: unknown[] = [];
    const where = await this.selectionWhere(accountId, { ids: wanted }, params);
    const rows: MatchRow[] = await this.db.query(`${SELECT} WHERE ${where.join(' AND ')}`, params);
    return new Map(rows.map((r) => [String(r.id), r]));
  }

  /**
   * Match objects of one version's view, for the rows whose media still exist (one query for the
   * media); credit matches have no media.
   */
  async views(rows: MatchRow[], view: (r: MatchRow, media: MediaRecord | null, baseUrl: string) => Record<string, unknown>, baseUrl: string): Promise<Record<string, unknown>[]> {
    const ids = mediaIdsOf(rows);
    const media = new Map((await this.media.byIds(ids)).map((m) => [m.id, m]));
    return rows
      .filter((r) => r.media_id === null || media.has(Number(r.media_id)))
      .map((r) => view(r, r.media_id === null ? null : media.get(Number(r.media_id))!, baseUrl));
  }

  /** The few media fields of a v4 CSV row, without the ORM (exports read thousands per batch). */
  async csvMedia(accountId: number, rows: MatchRow[]): Promise<Map<number, MediaCsvFields>> {
    const ids = mediaIdsOf(rows);
    if (!ids.length) return new Map();
    const found = await this.media.byIds(ids, accountId);
    return new Map(found.map((m) => [m.id, { id: m.id, type: m.type, path: m.path, created: m.created, credit: m.credit }]));
  }

  /**
   * Whether the account has a match whose page URL (or image URL) ends with `suffix`: what a source
   * asks before showing a page or image it recorded matches for (the press's pages and images).
   */
  async hasMatchEndingWith(accountId: number, field: 'page_url' | 'query_url', suffix: string): Promise<boolean> {
    const column = field === 'page_url' ? 'page_url' : 'query_url';
    const like = `%${suffix.replace(/[\\%_]/g, (c) => `\\${c}`)}`;
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM matches WHERE account_id = $1 AND ${column} LIKE $2 LIMIT 1`, [accountId, like]);
    return rows.length > 0;
  }

  /** Tags and export are the user's to change; everything else is evidence. */
  async update(accountId: number, id: number, change: { tags?: string[]; export?: boolean }): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE matches SET tags = COALESCE($3, tags), export = COALESCE($4, export) WHERE account_id = $1 AND id = $2 RETURNING id`,
      [accountId, id, change.tags ?? null, change.export ?? null],
    );
    return returnedRows(result).length > 0;
  }
}

