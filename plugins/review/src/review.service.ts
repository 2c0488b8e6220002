import {
  inject,
  injectable,
  notFound,
  TOKENS,
  unprocessable,
  validationError,
  type Clock,
  type DataSource,
  type EntityManager,
  type ErrorItem,
  type EventPublisher,
  type Principal,
  type QueryValue,
} from '@filigrane/plugin-api';
import { MatchQueryService, type MatchRef } from '@filigrane/plugin-matches';
import type { MatchReview, MatchReviewedData, ReviewActor, ReviewChange, ReviewChangeResult, ReviewService, SetStateOptions } from './review.api.js';
import { MAX_NOTE, text } from './review-input.js';
import { isReviewState, type ReviewState } from './review-states.js';
import { REVIEW_SETTINGS, type ReviewSettings } from './review.settings.js';

/** A review_states row, as the service reads it. */
export interface StateRow {
  id: string;
  state: ReviewState;
  license_id: string | null;
  automatic: boolean;
  note: string | null;
  changed_at: Date;
}

export interface ReviewListItem {
  ref: MatchRef;
  review: MatchReview;
}

/** One change to write: the same state, licence and note for a set of matches. */
export interface Change {
  state: ReviewState;
  licenseId: string | null;
  note: string | null;
  automatic: boolean;
  actor: ReviewActor;
  /** Re-checked under the row lock: a match whose current row fails it is left alone (a person decided meanwhile). */
  onlyIf?: (current: StateRow | undefined) => boolean;
}

/** Matches walked per batch (a bulk change is atomic per batch). */
const BATCH = 1000;

export const actorOf = (p: Principal): ReviewActor => ({
  type: p.applicationId ? 'application' : 'account',
  accountId: p.accountId,
  username: p.username,
  applicationId: p.applicationId ?? null,
});

/**
 * Review states and their audit trail. A match without a row is `new`; every change writes the
 * current row, an audit row and a `match.reviewed` event in one transaction (the outbox).
 */
@injectable()
export class ReviewStore implements ReviewService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(MatchQueryService) private readonly matches: MatchQueryService,
    @inject(REVIEW_SETTINGS.token) private readonly settings: ReviewSettings,
  ) {}

  /** The account's matches among `ids` (others are not its own, or no longer exist). */
  async refsByIds(accountId: number, ids: string[]): Promise<MatchRef[]> {
    const out: MatchRef[] = [];
    for (let i = 0; i < ids.length; i += 5000) {
      const chunk = ids.slice(i, i + 5000);
      out.push(...(await this.matches.refs(accountId, { ids: chunk }, { limit: chunk.length })));
    }
    return out;
  }

  async rows(accountId: number, ids: string[], tx: Pick<EntityManager, 'query'> = this.db, lock = false): Promise<Map<string, StateRow>> {
    if (ids.length === 0) return new Map();
    const rows: StateRow[] = await tx.query(
      `SELECT match_id::text AS id, state, license_id::text AS license_id, automatic, note, changed_at FROM review_states
       WHERE account_id = $1 AND match_id = ANY($2::bigint[]) ORDER BY match_id${lock ? ' FOR UPDATE' : ''}`,
      [accountId, ids],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  async states(accountId: number, matchIds: string[]): Promise<Map<string, MatchReview>> {
    const refs = await this.refsByIds(accountId, matchIds.filter((id) => /^\d{1,15}$/.test(id)));
    const rows = await this.rows(accountId, refs.map((r) => r.id));
    return new Map(refs.map((ref) => [ref.id, reviewOf(ref, rows.get(ref.id))]));
  }

  async setState(principal: Principal, matchIds: string[], state: ReviewState, note?: string, options: SetStateOptions = {}): Promise<ReviewChangeResult> {
    const change = await this.checkedChange(principal, state, note, options);
    const ids = [...new Set(matchIds)];
    const refs = await this.refsByIds(principal.accountId, ids.filter((id) => /^\d{1,15}$/.test(id)));
    if (refs.length !== ids.length) {
      const found = new Set(refs.map((r) => r.id));
      const missing = ids.filter((id) => !found.has(id));
      throw notFound(`No such match: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? '...' : ''}.`);
    }
    let changed = 0;
    for (let i = 0; i < ids.length; i += BATCH) changed += await this.write(principal.accountId, ids.slice(i, i + BATCH), change);
    return { matched: ids.length, changed };
  }

  async setStateByFilter(principal: Principal, query: Record<string, QueryValue>, state: ReviewState, note?: string): Promise<ReviewChangeResult> {
    const change = await this.checkedChange(principal, state, note, {});
    const total = await this.matches.count(principal.accountId, { query });
    if (total > this.settings.bulkMax) {
      throw unprocessable('too_many_matches', `The filter selects ${total} matches; one request changes at most ${this.settings.bulkMax}: narrow the filter (dates, site, media).`);
    }
    let matched = 0;
    let changed = 0;
    let afterId: string | undefined;
    for (;;) {
      const refs = await this.matches.refs(principal.accountId, { query }, { afterId, limit: BATCH });
      if (refs.length === 0) break;
      matched += refs.length;
      changed += await this.write(principal.accountId, refs.map((r) => r.id), change);
      afterId = refs[refs.length - 1]!.id;
      if (refs.length < BATCH) break;
    }
    return { matched, changed };
  }

  async history(accountId: number, matchId: string): Promise<ReviewChange[] | null> {
    if (!/^\d{1,15}$/.test(matchId) || (await this.refsByIds(accountId, [matchId])).length === 0) return null;
    const rows: HistoryRow[] = await this.db.query(
      `SELECT id::text, match_id::text, state, previous_state, license_id::text, note, actor_type, actor_account_id, actor_username, application_id, changed_at
       FROM review_changes WHERE account_id = $1 AND match_id = $2 ORDER BY review_changes.id`,
      [accountId, matchId],
    );
    return rows.map(changeOf);
  }

  /** The reviews of the matches a v4 filter query selects, in match id order after `afterId`. */
  async listPage(accountId: number, query: Record<string, QueryValue>, afterId: string | undefined, limit: number): Promise<{ items: ReviewListItem[]; more: boolean }> {
    const refs = await this.matches.refs(accountId, { query }, { afterId, limit: limit + 1 });
    const page = refs.slice(0, limit);
    const rows = await this.rows(accountId, page.map((r) => r.id));
    return { items: page.map((ref) => ({ ref, review: reviewOf(ref, rows.get(ref.id)) })), more: refs.length > limit };
  }

  /** Every review a filter query selects, batch after batch (CSV exports of any size). */
  async *listAll(accountId: number, query: Record<string, QueryValue>): AsyncGenerator<ReviewListItem[]> {
    let afterId: string | undefined;
    for (;;) {
      const { items, more } = await this.listPage(accountId, query, afterId, BATCH);
      if (items.length) yield items;
      if (!more) return;
      afterId = items[items.length - 1]!.ref.id;
    }
  }

  /** How many matches a filter query selects. */
  count(accountId: number, query: Record<string, QueryValue>): Promise<number> {
    return this.matches.count(accountId, { query });
  }

  /** Changes recorded in the account between two instants, by new state (the digests). */
  async changesBetween(accountId: number, since: Date, until: Date): Promise<Map<ReviewState, number>> {
    const rows: { state: ReviewState; n: number }[] = await this.db.query(
      'SELECT state, count(*)::int AS n FROM review_changes WHERE account_id = $1 AND changed_at >= $2 AND changed_at < $3 GROUP BY state',
      [accountId, since, until],
    );
    return new Map(rows.map((r) => [r.state, r.n]));
  }

  /** Validates what a person asks; a licence named must be one of the account's licensees. */
  private async checkedChange(principal: Principal, state: ReviewState, note: string | undefined, options: SetStateOptions): Promise<Change> {
    const errors: ErrorItem[] = [];
    if (!isReviewState(state)) errors.push({ field: 'state', code: 'invalid_choice', details: 'state is one of: new, unsure, licensed, infringing, not_a_match, ignored.' });
    const checkedNote = text(note, 'note', MAX_NOTE, errors);
    let licenseId: string | null = null;
    if (options.licenseId !== undefined && options.licenseId !== null) {
      if (state !== 'licensed') errors.push({ field: 'license_id', code: 'invalid', details: 'license_id goes with state licensed only.' });
      else if (!/^\d{1,15}$/.test(String(options.licenseId))) errors.push({ field: 'license_id', code: 'invalid', details: 'license_id is a licensee id.' });
      else {
        const found: unknown[] = await this.db.query('SELECT 1 FROM review_licensees WHERE account_id = $1 AND id = $2', [principal.accountId, String(options.licenseId)]);
        if (found.length === 0) errors.push({ field: 'license_id', code: 'not_found', details: `No licensee ${String(options.licenseId)} in this account.` });
        else licenseId = String(options.licenseId);
      }
    }
    if (errors.length) throw validationError(errors);
    return { state, licenseId, note: checkedNote || null, automatic: false, actor: actorOf(principal) };
  }

  /**
   * Applies one change to a batch of the account's matches in one transaction: current rows locked,
   * matches already in that state (same licence, no note) left alone, then the rows, the audit trail
   * and one `match.reviewed` per match changed (ordered with the match's own events). Returns how many changed.
   */
  async write(accountId: number, ids: string[], change: Change): Promise<number> {
    const written = await this.db.transaction(async (tx) => {
      const current = await this.rows(accountId, ids, tx, true);
      const targets = ids.filter((id) => {
        const row = current.get(id);
        if (change.onlyIf && !change.onlyIf(row)) return false;
        // A person's note is recorded even on the same state; a rule's is only the licence named again.
        return (row?.state ?? 'new') !== change.state || (row?.license_id ?? null) !== change.licenseId || (change.note !== null && !change.automatic);
      });
      if (targets.length === 0) return 0;
      const now = this.clock.now();
      const previous = targets.map((id) => current.get(id)?.state ?? 'new');
      await tx.query(
        `INSERT INTO review_states (account_id, match_id, state, license_id, automatic, note, changed_at)
         SELECT $1, id, $3, $4, $5, $6, $7 FROM unnest($2::bigint[]) AS id
         ON CONFLICT (account_id, match_id) DO UPDATE SET state = EXCLUDED.state, license_id = EXCLUDED.license_id,
           automatic = EXCLUDED.automatic, note = EXCLUDED.note, changed_at = EXCLUDED.changed_at`,
        [accountId, targets, change.state, change.licenseId, change.automatic, change.note, now],
      );
      const a = change.actor;
      await tx.query(
        `INSERT INTO review_changes (account_id, match_id, state, previous_state, license_id, note, automatic, actor_type, actor_account_id, actor_username, application_id, changed_at)
         SELECT $1, t.id, $3, t.prev, $4, $5, $6, $7, $8, $9, $10, $11 FROM unnest($2::bigint[], $12::text[]) AS t(id, prev)`,
        [accountId, targets, change.state, change.licenseId, change.note, change.automatic, a.type, a.accountId, a.username, a.applicationId, now, previous],
      );
      const events = targets.map((id, i) => {
        const data: MatchReviewedData = {
          id,
          state: change.state,
          previous_state: previous[i]!,
          license_id: change.licenseId,
          note: change.note,
          automatic: change.automatic,
          actor: { type: a.type, account_id: a.accountId, application_id: a.applicationId },
          changed_at: now.toISOString(),
        };
        return { event: { type: 'match.reviewed' as const, accountId, data: data as unknown as Record<string, unknown>, occurredAt: now }, key: `match:${id}` };
      });
      await this.events.enqueueAll(events, tx);
      return targets.length;
    });
    if (written) await this.events.flush();
    return written;
  }

  /** Everything the account's reviews left (the account-deleted hook). */
  async forgetAccount(accountId: number): Promise<void> {
    for (const table of ['review_states', 'review_changes', 'review_licensees', 'review_licence_runs']) {
      await this.db.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
    }
  }
}

interface HistoryRow {
  id: string;
  match_id: string;
  state: ReviewState;
  previous_state: ReviewState;
  license_id: string | null;
  note: string | null;
  actor_type: ReviewActor['type'];
  actor_account_id: number | null;
  actor_username: string | null;
  application_id: number | null;
  changed_at: Date;
}

const changeOf = (r: HistoryRow): ReviewChange => ({
  id: r.id,
  matchId: r.match_id,
  state: r.state,
  previousState: r.previous_state,
  licenseId: r.license_id,
  note: r.note,
  actor: { type: r.actor_type, accountId: r.actor_account_id, username: r.actor_username, applicationId: r.application_id },
  changedAt: new Date(r.changed_at),
});

/** A match's review: its row, or `new` since it was first seen. */
export const reviewOf = (ref: MatchRef, row: StateRow | undefined): MatchReview =>
  row
    ? { state: row.state, licenseId: row.license_id, changedAt: new Date(row.changed_at), note: row.note, automatic: row.automatic }
    : { state: 'new', licenseId: null, changedAt: ref.dateCreated, note: null, automatic: false };
