import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { filterSql, keysetBatches, MAX_TAGS, returnedRows, tagEditSql, TOKENS, type Clock, type FilterCondition, type FilterFields, type TagEdit } from '@filigrane/core';
import { MatchQueryService } from '@filigrane/plugin-matches';
import { aggregationFields, type AggregationDef } from './aggregation-catalog.js';

/** An aggregate row joined with its media and site, as the views need it. */
export interface AggregationRow {
  id: string;
  account_id: number;
  name: string;
  media_id: string | null;
  site_id: number | null;
  page_url: string | null;
  match_count: number;
  watermarked_count: number;
  web_count: number;
  press_count: number;
  credit_count: number;
  video_count: number;
  first_seen: Date;
  last_seen: Date;
  sessions: number[];
  export: boolean;
  tags: string[];
  version: number;
  created: Date;
  updated: Date;
  media_path: string | null;
  media_type: string | null;
  site_name: string | null;
  site_domain: string | null;
  site_suffix: string | null;
  site_country: string | null;
}

/** A row of an export: the dates are ISO 8601 text already, `position` the exact keyset value. */
export type ExportRow = Omit<AggregationRow, 'created' | 'updated' | 'first_seen' | 'last_seen'> & {
  created: string;
  updated: string;
  first_seen: string;
  last_seen: string;
  position: string;
};

/** What the user may change; everything else is computed from the matches. */
export interface AggregationChange {
  export?: boolean;
  tags?: string[];
}

const FROM = 'FROM aggregations a LEFT JOIN media_catalog md ON md.id = a.media_id LEFT JOIN site_directory s ON s.id = a.site_id';
const SELECT = `SELECT a.*, md.path AS media_path, md.type AS media_type, s.name AS site_name, s.domain AS site_domain,
  s.suffix AS site_suffix, s.country AS site_country ${FROM}`;
const ORDER = 'ORDER BY a.last_seen DESC, a.id DESC';
// Exports: dates as ISO 8601 text made by PostgreSQL (parsing then formatting a Date per field was
// a third of the export's CPU), and the keyset position as exact text (microseconds kept).
const isoSql = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const EXPORT_SELECT = `SELECT a.id, a.account_id, a.name, a.media_id, a.site_id, a.page_url, a.match_count, a.watermarked_count, a.web_count,
  a.press_count, a.credit_count, a.video_count, a.sessions, a.export, a.tags, a.version, ${isoSql('a.created')} AS created,
  ${isoSql('a.updated')} AS updated, ${isoSql('a.first_seen')} AS first_seen, ${isoSql('a.last_seen')} AS last_seen, a.last_seen::text AS position,
  md.path AS media_path, md.type AS media_type, s.name AS site_name, s.domain AS site_domain, s.suffix AS site_suffix, s.country AS site_country ${FROM}`;

/** Aggregation listings (filters, newest activity first), exports and the user's edits. */
@injectable()
export class AggregationQueryService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(MatchQueryService) private readonly matches: MatchQueryService,
  ) {}

  /** The match filters other plugins contribute (matches' MATCH_FILTERS: `review_state`...), usable on every aggregation. */
  contributedFields(): FilterFields {
    return this.matches.contributedFields();
  }

  private where(accountId: number, def: AggregationDef, conditions: FilterCondition[], params: unknown[]): string {
    params.push(accountId, def.name);
    const contributed = this.contributedFields();
    const own = conditions.filter((c) => !Object.hasOwn(contributed, c.field));
    const where = ['a.account_id = $1', 'a.name = $2', ...filterSql(own, aggregationFields(def), params)];
    // A contributed match filter keeps the groups with at least one match it selects (matches writes
    // that SQL; the group's matches are those of its key, as the triggers compute it from the row contract).
    const level = def.page ? 3 : def.site ? 2 : 1;
    const ofGroup = `m.account_id = a.account_id
        AND (m.media_id = a.media_id OR (a.media_id IS NULL AND m.media_id IS NULL))
        AND aggregations_key(${level}, m.media_id, m.site_id, m.page_url, m.query_url) = a.group_key`;
    for (const c of conditions.filter((c) => Object.hasOwn(contributed, c.field))) where.push(this.matches.someMatchSql([c], ofGroup, params));
    return where.join(' AND ');
  }

  /**
   * Counts are exact up to this many objects; beyond, the planner's estimate (documented in
   * docs/api-decisions.md): an exact count of 200,000 groups costs more than the page itself.
   */
  exactCountLimit = 5_000;

  /** One page, the count of the filtered collection, and whether a next page exists (one row more is read). */
  async list(accountId: number, def: AggregationDef, conditions: FilterCondition[], offset: number, limit: number): Promise<{ rows: AggregationRow[]; count: number; hasNext: boolean }> {
    const params: unknown[] = [];
    const where = this.where(accountId, def, conditions, params);
    const [rows, count] = await Promise.all([
      this.db.query(`${SELECT} WHERE ${where} ${ORDER} LIMIT ${Number(limit) + 1} OFFSET ${Number(offset)}`, params) as Promise<AggregationRow[]>,
      this.count(where, params),
    ]);
    // An estimated count may fall short of the rows a page has just seen; an empty page (past the
    // end) proves nothing, so the count stays the collection's, whatever page was asked for.
    return { rows: rows.slice(0, limit), count: rows.length ? Math.max(count, offset + rows.length) : count, hasNext: rows.length > limit };
  }

  private async count(where: string, params: unknown[]): Promise<number> {
    const cap = this.exactCountLimit;
    // In the page's order: a large result is counted along the account's recency index (the rows a
    // plain LIMIT would find first by a sequential scan may lie anywhere in a table of all accounts).
    const exact: { n: number }[] = await this.db.query(`SELECT count(*)::int AS n FROM (SELECT 1 ${FROM} WHERE ${where} ${ORDER} LIMIT ${cap + 1}) c`, params);
    if (exact[0]!.n <= cap) return exact[0]!.n;
    const explained: { 'QUERY PLAN': unknown }[] = await this.db.query(`EXPLAIN (FORMAT JSON) SELECT 1 ${FROM} WHERE ${where}`, params);
    const raw = explained[0]!['QUERY PLAN'];
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: { 'Plan Rows': number } }[];
    return Math.max(cap + 1, Math.round(plan[0]!.Plan['Plan Rows']));
  }

  /**
   * Every exportable object (export = true) matching the filters, in batches: a keyset walk, so
   * memory stays flat and each batch is one indexed query, whatever the size of the export.
   */
  async *exportBatches(accountId: number, def: AggregationDef, conditions: FilterCondition[], batchSize = 2000): AsyncGenerator<ExportRow[]> {
    const batch = (after: ExportRow | null): Promise<ExportRow[]> => {
      const params: unknown[] = [];
      let where = `${this.where(accountId, def, conditions, params)} AND a.export`;
      if (after) {
        params.push(after.position, after.id);
        where += ` AND (a.last_seen, a.id) < ($${params.length - 1}::timestamptz, $${params.length})`;
      }
      return this.db.query(`${EXPORT_SELECT} WHERE ${where} ${ORDER} LIMIT ${batchSize}`, params);
    };
    yield* keysetBatches(batch, batchSize);
  }

  async get(accountId: number, def: AggregationDef, id: string, manager: EntityManager = this.db.manager, lock = false): Promise<AggregationRow | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const rows: AggregationRow[] = await manager.query(`${SELECT} WHERE a.account_id = $1 AND a.name = $2 AND a.id = $3${lock ? ' FOR UPDATE OF a' : ''}`, [accountId, def.name, id]);
    return rows[0] ?? null;
  }

  /** Applies the user's change and counts it in `_version`; null when the object is not the account's. */
  async update(accountId: number, def: AggregationDef, id: string, change: AggregationChange): Promise<AggregationRow | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const result = await this.db.query(
      `UPDATE aggregations SET export = COALESCE($4, export), tags = COALESCE($5, tags), version = version + 1, updated = $6
       WHERE account_id = $1 AND name = $2 AND id = $3 RETURNING id`,
      [accountId, def.name, id, change.export ?? null, change.tags ?? null, this.clock.now()],
    );
    return returnedRows(result).length ? this.get(accountId, def, id) : null;
  }

  /**
   * Read-modify-write of one object under a row lock (field and list-item edits), so two
   * concurrent edits of tags.0 and tags.1 never lose one another.
   */
  async edit(accountId: number, def: AggregationDef, id: string, apply: (row: AggregationRow) => AggregationChange): Promise<AggregationRow | null> {
    const found = await this.db.transaction(async (manager) => {
      const row = await this.get(accountId, def, id, manager, true);
      if (!row) return false;
      const change = apply(row);
      await manager.query(
        'UPDATE aggregations SET export = COALESCE($2, export), tags = COALESCE($3, tags), version = version + 1, updated = $4 WHERE id = $1',
        [id, change.export ?? null, change.tags ?? null, this.clock.now()],
      );
      return true;
    });
    return found ? this.get(accountId, def, id) : null;
  }

  /**
   * Tags and export of every object of the filters and/or ids in one statement, each change counted
   * in `_version`; tag edits are SQL (tagEditSql), so concurrent edits of other tags are kept.
   */
  async bulkUpdate(
    accountId: number,
    def: AggregationDef,
    selection: { conditions?: FilterCondition[]; ids?: string[] },
    change: { tags?: TagEdit; export?: boolean },
  ): Promise<{ matched: number; updated: number; refused: number; ids: string[] }> {
    const params: unknown[] = [];
    const where = [this.where(accountId, def, selection.conditions ?? [], params)];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    if (selection.ids) where.push(`a.id = ANY(${p(selection.ids)}::bigint[])`);
    const tags = change.tags ? tagEditSql('a.tags', change.tags, p) : 'a.tags';
    const exportFlag = change.export === undefined ? 'a.export' : `${p(change.export)}::boolean`;
    const [row]: { matched: number; updated: number; ids: string[] | null }[] = await this.db.query(
      `WITH target AS (SELECT a.id ${FROM} WHERE ${where.join(' AND ')}),
       changed AS (
         UPDATE aggregations a SET tags = ${tags}, export = ${exportFlag}, version = a.version + 1, updated = ${p(this.clock.now())}
         FROM target WHERE a.id = target.id AND cardinality(${tags}) <= ${MAX_TAGS}
         RETURNING a.id)
       SELECT (SELECT count(*)::int FROM target) AS matched, (SELECT count(*)::int FROM changed) AS updated,
              (SELECT array_agg(id::text) FROM (SELECT id FROM changed ORDER BY id LIMIT 1000) c) AS ids`,
      params,
    );
    return { matched: row!.matched, updated: row!.updated, refused: row!.matched - row!.updated, ids: row!.ids ?? [] };
  }
}
