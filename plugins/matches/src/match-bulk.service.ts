import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { badRequest, MAX_TAGS, returnedRows, tagEditSql, TOKENS, validationError, type TagEdit } from '@filigrane/core';
import { FROM, MatchQueryService, type MatchSelection } from './match-query.service.js';

export interface MatchBulkChange {
  tags?: TagEdit;
  export?: boolean;
}

export interface MatchBulkResult {
  /** Matches the selection found. */
  matched: number;
  /** Matches changed. */
  updated: number;
  /** Matches left as they were: the edit would give them more than MAX_TAGS tags. */
  refused: number;
  /** Ids of the changed matches (the first MAX_IDS). */
  ids: string[];
}

/** Ids one request may name. */
export const MAX_IDS = 1000;

/**
 * Bulk actions over a selection of matches, each one statement: tags and export changed in SQL
 * (no read-modify-write, so concurrent edits of other tags are kept), the selection resolved from
 * the same selection as the listing's walks (MatchQueryService.selectionWhere).
 */
@injectable()
export class MatchBulkService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(MatchQueryService) private readonly query: MatchQueryService,
  ) {}

  /** The SQL condition of a selection over FROM's aliases, its parameters appended. */
  private async condition(accountId: number, selection: MatchSelection, params: unknown[]): Promise<string> {
    const { ids, query } = selection;
    if (ids === undefined && query === undefined) throw badRequest('invalid', { non_field_errors: ['Give ids, a filter, or both.'] });
    if (ids !== undefined && (ids.length === 0 || ids.length > MAX_IDS || !ids.every((id) => /^\d{1,15}$/.test(id)))) {
      throw validationError([{ field: 'ids', code: 'invalid', details: `ids is a list of 1 to ${MAX_IDS} match ids.` }]);
    }
    return (await this.query.selectionWhere(accountId, selection, params)).join(' AND ');
  }

  /** Tags and export of every selected match, in one statement. */
  async update(accountId: number, selection: MatchSelection, change: MatchBulkChange): Promise<MatchBulkResult> {
    const params: unknown[] = [];
    const where = await this.condition(accountId, selection, params);
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const tags = change.tags ? tagEditSql('m.tags', change.tags, p) : 'm.tags';
    const exportFlag = change.export === undefined ? 'm.export' : `${p(change.export)}::boolean`;
    const [row]: { matched: number; updated: number; ids: string[] | null }[] = await this.db.query(
      `WITH target AS (SELECT m.id ${FROM} WHERE ${where}),
       changed AS (
         UPDATE matches m SET tags = ${tags}, export = ${exportFlag}
         FROM target WHERE m.id = target.id AND m.account_id = ${p(accountId)} AND cardinality(${tags}) <= ${MAX_TAGS}
         RETURNING m.id)
       SELECT (SELECT count(*)::int FROM target) AS matched, (SELECT count(*)::int FROM changed) AS updated,
              (SELECT array_agg(id::text) FROM (SELECT id FROM changed ORDER BY id LIMIT ${MAX_IDS}) c) AS ids`,
      params,
    );
    return { matched: row!.matched, updated: row!.updated, refused: row!.matched - row!.updated, ids: row!.ids ?? [] };
  }

  /** One match's tags edited in one statement; null when the account has no such match, 400 past MAX_TAGS. */
  async editTags(accountId: number, id: string, edit: TagEdit): Promise<{ id: string; tags: string[]; export: boolean } | null> {
    const params: unknown[] = [accountId, id];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const tags = tagEditSql('tags', edit, p);
    const rows = returnedRows<{ id: string; tags: string[]; export: boolean }>(
      await this.db.query(`UPDATE matches SET tags = ${tags} WHERE account_id = $1 AND id = $2 AND cardinality(${tags}) <= ${MAX_TAGS} RETURNING id::text AS id, tags, export`, params),
    );
    if (rows[0]) return rows[0];
    const exists: unknown[] = await this.db.query('SELECT 1 FROM matches WHERE account_id = $1 AND id = $2', [accountId, id]);
    if (exists.length) throw validationError([{ field: 'tags', code: 'too_many_tags', details: `A match has at most ${MAX_TAGS} tags.` }]);
    return null;
  }
}
