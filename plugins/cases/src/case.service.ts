import { conflict, badRequest, inject, injectable, notFound, returnedRows, TOKENS, type Clock, type DataSource, type EntityManager, type EventPublisher, type Principal } from '@filigrane/plugin-api';
import { MatchQueryService } from '@filigrane/plugin-matches';
import { checkTransition, isActive, type CaseState, type Resolution } from './case-states.js';
import { EVIDENCE_SERVICE, type EvidencePackStatus, type EvidencePackSummary, type EvidenceService } from '@filigrane/plugin-evidence';
import { REVIEW_SERVICE, type ReviewService } from '@filigrane/plugin-review';

/** Who did something to a case: an account (with its OAuth application) or the service itself. */
export interface Actor {
  type: 'account' | 'application' | 'system';
  account_id: number | null;
  application_id: number | null;
}
export const actorOf = (p: Principal): Actor =>
  p.applicationId ? { type: 'application', account_id: p.accountId, application_id: p.applicationId } : { type: 'account', account_id: p.accountId, application_id: null };
export const SYSTEM: Actor = { type: 'system', account_id: null, application_id: null };

export interface CaseRow {
  id: number;
  account_id: number;
  title: string;
  site: string | null;
  state: CaseState;
  resolution: Resolution | null;
  created: Date;
  updated: Date;
  match_count: number;
  notice_count: number;
  evidence_count: number;
  last_notice_sent: Date | null;
}

export interface CaseMatchRow {
  match_id: string;
  media_id: string | null;
  site: string | null;
  page_url: string | null;
  image_url: string | null;
  first_seen: Date | null;
  last_seen: Date | null;
  added: Date;
}

export interface HistoryRow {
  at: Date;
  action: string;
  from_state: CaseState | null;
  to_state: CaseState | null;
  resolution: Resolution | null;
  actor: Actor;
  note: string | null;
  detail: Record<string, unknown>;
}

export interface EvidenceRow {
  pack_id: string;
  status: EvidencePackStatus;
  error: string | null;
  sha256: string | null;
  size: number | null;
  match_ids: string[];
  captured: Date | null;
  added: Date;
}

export interface CaseFilters {
  state?: CaseState;
  site?: string;
}

const CASE_SELECT = `SELECT c.*,
  (SELECT count(*)::int FROM cases_matches m WHERE m.case_id = c.id) AS match_count,
  (SELECT count(*)::int FROM cases_notices n WHERE n.case_id = c.id) AS notice_count,
  (SELECT count(*)::int FROM cases_evidence e WHERE e.case_id = c.id) AS evidence_count,
  (SELECT max(n.sent_at) FROM cases_notices n WHERE n.case_id = c.id) AS last_notice_sent
  FROM cases c`;

/**
 * Cases: infringing matches grouped (by site automatically, or as the user chooses), their states
 * and history, evidence packs and notices. Only matches the review plugin says are `infringing` join.
 * Every change writes its history row and its `case.opened`/`case.updated` event in one transaction.
 */
@injectable()
export class CaseService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
    @inject(MatchQueryService) private readonly matches: MatchQueryService,
    @inject(REVIEW_SERVICE) private readonly review: ReviewService,
    @inject(EVIDENCE_SERVICE) private readonly evidence: EvidenceService,
  ) {}

  async list(accountId: number, filters: CaseFilters, offset: number, limit: number): Promise<[CaseRow[], number]> {
    const params: unknown[] = [accountId];
    const where = ['c.account_id = $1'];
    if (filters.state) where.push(`c.state = $${params.push(filters.state)}`);
    if (filters.site) where.push(`c.site = $${params.push(filters.site.toLowerCase())}`);
    const [{ n }] = (await this.db.query(`SELECT count(*)::int AS n FROM cases c WHERE ${where.join(' AND ')}`, params)) as { n: number }[];
    const rows = (await this.db.query(`${CASE_SELECT} WHERE ${where.join(' AND ')} ORDER BY c.id DESC OFFSET $${params.push(offset)} LIMIT $${params.push(limit)}`, params)) as CaseRow[];
    return [rows, n];
  }

  /** One case of the account; another account's id is a 404 like an unknown one. */
  async get(accountId: number, id: number, tx: Pick<EntityManager, 'query'> = this.db): Promise<CaseRow> {
    if (!Number.isSafeInteger(id)) throw notFound('No such case.');
    const rows = (await tx.query(`${CASE_SELECT} WHERE c.account_id = $1 AND c.id = $2`, [accountId, id])) as CaseRow[];
    if (!rows[0]) throw notFound('No such case.');
    return rows[0];
  }

  /** The match ids of several cases at once (lists, CSV). */
  async matchIdsOf(caseIds: number[]): Promise<Map<number, string[]>> {
    const rows = (await this.db.query('SELECT case_id, match_id FROM cases_matches WHERE case_id = ANY($1) ORDER BY added, match_id', [caseIds])) as { case_id: number; match_id: string }[];
    const out = new Map<number, string[]>(caseIds.map((id) => [id, []]));
    for (const r of rows) out.get(r.case_id)?.push(r.match_id);
    return out;
  }

  caseMatches(caseId: number): Promise<CaseMatchRow[]> {
    return this.db.query('SELECT * FROM cases_matches WHERE case_id = $1 ORDER BY added, match_id', [caseId]);
  }

  history(caseId: number): Promise<HistoryRow[]> {
    return this.db.query('SELECT at, action, from_state, to_state, resolution, actor, note, detail FROM cases_history WHERE case_id = $1 ORDER BY id', [caseId]);
  }

  evidencePacks(caseId: number): Promise<EvidenceRow[]> {
    return this.db.query('SELECT pack_id, status, error, sha256, size::float8 AS size, match_ids, captured, added FROM cases_evidence WHERE case_id = $1 ORDER BY added, pack_id', [caseId]);
  }

  /** caseMatches, evidencePacks and history of several cases in three statements (a list shows them all). */
  async partsOf(caseIds: number[]): Promise<Map<number, { matches: CaseMatchRow[]; evidence: EvidenceRow[]; history: HistoryRow[] }>> {
    const [matches, evidence, history] = (await Promise.all([
      this.db.query('SELECT * FROM cases_matches WHERE case_id = ANY($1) ORDER BY added, match_id', [caseIds]),
      this.db.query('SELECT case_id, pack_id, status, error, sha256, size::float8 AS size, match_ids, captured, added FROM cases_evidence WHERE case_id = ANY($1) ORDER BY added, pack_id', [caseIds]),
      this.db.query('SELECT case_id, at, action, from_state, to_state, resolution, actor, note, detail FROM cases_history WHERE case_id = ANY($1) ORDER BY id', [caseIds]),
    ])) as [(CaseMatchRow & { case_id: number })[], (EvidenceRow & { case_id: number })[], (HistoryRow & { case_id: number })[]];
    const out = new Map(caseIds.map((id) => [id, { matches: [] as CaseMatchRow[], evidence: [] as EvidenceRow[], history: [] as HistoryRow[] }]));
    for (const m of matches) out.get(Number(m.case_id))?.matches.push(m);
    for (const { case_id, ...e } of evidence) out.get(Number(case_id))?.evidence.push(e);
    for (const { case_id, ...h } of history) out.get(Number(case_id))?.history.push(h);
    return out;
  }

  /** A case from chosen matches (each infringing, in no other open case); `site` is set when they share one. */
  async create(principal: Principal, input: { matchIds: string[]; title?: string; note?: string }): Promise<CaseRow> {
    const accountId = principal.accountId;
    const facts = await this.infringingMatches(accountId, input.matchIds);
    const sites = new Set(facts.map((f) => f.site));
    const site = sites.size === 1 ? [...sites][0]! : null;
    const id = await this.inTransaction(accountId, async (tx) => {
      await this.assertFree(tx, accountId, input.matchIds, null);
      return this.openCase(tx, accountId, actorOf(principal), input.title ?? defaultTitle(site, facts.length), site, facts, input.note ?? null);
    });
    return this.get(accountId, id);
  }

  async rename(principal: Principal, id: number, title: string): Promise<CaseRow> {
    await this.inTransaction(principal.accountId, async (tx) => {
      const c = await this.get(principal.accountId, id, tx);
      await tx.query('UPDATE cases SET title = $2, updated = $3 WHERE id = $1', [id, title, this.clock.now()]);
      await this.record(tx, c, { action: 'renamed', actor: actorOf(principal), detail: { title } });
    });
    return this.get(principal.accountId, id);
  }

  /** Deletes a case, unless one of its notices went out (then it is closed instead, and kept). */
  async remove(principal: Principal, id: number): Promise<string[]> {
    return this.inTransaction(principal.accountId, async (tx) => {
      const c = await this.get(principal.accountId, id, tx);
      if (c.last_notice_sent) throw conflict('case_has_sent_notices', 'A case whose notice was sent is kept as a record: close it instead.');
      const keys = ((await tx.query('SELECT pdf_key FROM cases_notices WHERE case_id = $1', [id])) as { pdf_key: string }[]).map((r) => r.pdf_key);
      await tx.query('DELETE FROM cases WHERE id = $1', [id]);
      return keys;
    });
  }

  async transition(principal: Principal, id: number, input: { state: unknown; resolution?: unknown; note?: string }): Promise<CaseRow> {
    await this.inTransaction(principal.accountId, async (tx) => {
      const c = await this.get(principal.accountId, id, tx);
      const { to, resolution } = checkTransition(c.state, input.state, input.resolution);
      await this.setState(tx, c, to, resolution, actorOf(principal), input.note ?? null, 'transition');
    });
    return this.get(principal.accountId, id);
  }

  /** Moves an open (or notice_sent) case to notice_sent when a notice goes out; in the caller's transaction. */
  async noticeSent(tx: EntityManager, c: CaseRow, actor: Actor, detail: Record<string, unknown>, note: string | null): Promise<void> {
    if (!isActive(c.state)) throw conflict('invalid_transition', `A ${c.state} case takes no notice.`);
    await this.setState(tx, c, 'notice_sent', null, actor, note, 'notice_sent', detail);
  }

  async addMatches(principal: Principal, id: number, matchIds: string[], note?: string): Promise<CaseRow> {
    const accountId = principal.accountId;
    const c0 = await this.get(accountId, id);
    if (!isActive(c0.state)) throw conflict('case_not_active', `A ${c0.state} case takes no more matches (reopen it first).`);
    const facts = await this.infringingMatches(accountId, matchIds);
    await this.inTransaction(accountId, async (tx) => {
      const c = await this.get(accountId, id, tx);
      if (!isActive(c.state)) throw conflict('case_not_active', `A ${c.state} case takes no more matches.`);
      await this.assertFree(tx, accountId, matchIds, id);
      const added = await this.insertMatches(tx, c, facts);
      if (added.length) await this.record(tx, c, { action: 'matches_added', actor: actorOf(principal), note: note ?? null, detail: { match_ids: added } });
    });
    return this.get(accountId, id);
  }

  async removeMatches(principal: Principal, id: number, matchIds: string[], note?: string): Promise<CaseRow> {
    await this.inTransaction(principal.accountId, async (tx) => {
      const c = await this.get(principal.accountId, id, tx);
      if (!isActive(c.state)) throw conflict('case_not_active', `A ${c.state} case keeps its matches.`);
      const removed = await this.deleteMatches(tx, c, matchIds);
      if (removed.length === 0) throw notFound('None of these matches is in this case.');
      await this.record(tx, c, { action: 'matches_removed', actor: actorOf(principal), note: note ?? null, detail: { match_ids: removed } });
    });
    return this.get(principal.accountId, id);
  }

  /** Attaches a pack of the evidence plugin (by id), or asks it to capture one for the case's matches. */
  async attachEvidence(principal: Principal, id: number, input: { packId?: string; capture?: boolean }): Promise<CaseRow> {
    const accountId = principal.accountId;
    const c0 = await this.get(accountId, id);
    // A closed case is final; a resolved one may still take proof (it can reopen if the copy is back).
    if (c0.state === 'closed') throw conflict('case_not_active', 'A closed case takes no more evidence.');
    let packId = input.packId;
    if (input.capture) {
      const matchIds = (await this.caseMatches(id)).map((m) => m.match_id);
      if (matchIds.length === 0) throw conflict('case_empty', 'The case has no match to capture.');
      packId = (await this.evidence.capture(accountId, matchIds)).id;
    }
    const pack = await this.evidence.get(accountId, packId!);
    if (!pack) throw badRequest('unknown_pack', 'No such evidence pack in this account.');
    if (pack.status === 'failed') throw conflict('pack_failed', `This evidence pack could not be made: ${pack.error ?? 'unknown error'}.`);
    await this.inTransaction(accountId, async (tx) => {
      const c = await this.get(accountId, c0.id, tx);
      if (c.state === 'closed') throw conflict('case_not_active', 'A closed case takes no more evidence.');
      await this.insertPack(tx, c, pack, actorOf(principal));
    });
    return this.get(accountId, id);
  }

  private async insertPack(tx: EntityManager, c: CaseRow, pack: EvidencePackSummary, actor: Actor): Promise<void> {
    const rows = (await tx.query(
      `INSERT INTO cases_evidence (case_id, account_id, pack_id, status, error, sha256, size, match_ids, captured, added)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING pack_id`,
      [c.id, c.account_id, pack.id, pack.status, pack.error, pack.sha256, pack.size, pack.matchIds, pack.completedAt ?? pack.createdAt, this.clock.now()],
    )) as unknown[];
    if (rows.length) await this.record(tx, c, { action: 'evidence_added', actor, detail: { pack_id: pack.id, sha256: pack.sha256 } });
  }

  /** The case's packs as the evidence plugin now reports them (a pack being captured has no hash yet). */
  async refreshedEvidence(accountId: number, caseId: number): Promise<EvidenceRow[]> {
    const packs = await this.evidencePacks(caseId);
    for (const p of packs) {
      if (p.status !== 'pending') continue;
      const info = await this.evidence.get(accountId, p.pack_id);
      if (info) await this.packChanged(accountId, info);
    }
    return this.evidencePacks(caseId);
  }

  /** The `evidence.captured` listener: the pack as the evidence plugin has it now. */
  async onPackCaptured(accountId: number, packId: string): Promise<void> {
    const pack = packId ? await this.evidence.get(accountId, packId) : null;
    if (pack) await this.packChanged(accountId, pack);
  }

  /**
   * A pack of the account was built or failed (`evidence.captured`, or a read): the cases that carry
   * it take its state and hash; a complete pack covering a match of an open or notice_sent case joins it.
   */
  async packChanged(accountId: number, pack: EvidencePackSummary): Promise<void> {
    await this.db.query('UPDATE cases_evidence SET status = $3, error = $4, sha256 = $5, size = $6, match_ids = $7, captured = $8 WHERE account_id = $1 AND pack_id = $2', [
      accountId, pack.id, pack.status, pack.error, pack.sha256, pack.size, pack.matchIds, pack.completedAt ?? pack.createdAt,
    ]);
    if (pack.status !== 'complete' || pack.matchIds.length === 0) return;
    await this.inTransaction(accountId, async (tx) => {
      const cases = (await tx.query(
        `SELECT DISTINCT c.id FROM cases c JOIN cases_matches m ON m.case_id = c.id
         WHERE c.account_id = $1 AND c.state IN ('open', 'notice_sent') AND m.match_id = ANY($2)
           AND NOT EXISTS (SELECT 1 FROM cases_evidence e WHERE e.case_id = c.id AND e.pack_id = $3) ORDER BY c.id`,
        [accountId, pack.matchIds, pack.id],
      )) as { id: number }[];
      for (const { id } of cases) await this.insertPack(tx, await this.get(accountId, id, tx), pack, SYSTEM);
    });
  }

  /**
   * A match marked infringing joins its site's open case, or opens one (when the account's
   * auto_group is on; docs/api-decisions.md). A match no longer infringing leaves its open cases.
   */
  async onReviewed(accountId: number, matchIds: string[]): Promise<void> {
    if (matchIds.length === 0) return;
    const states = await this.review.states(accountId, matchIds);
    const infringing = matchIds.filter((id) => states.get(id)?.state === 'infringing');
    const cleared = matchIds.filter((id) => states.has(id) && states.get(id)!.state !== 'infringing');
    if (cleared.length) await this.leaveOpenCases(accountId, cleared);
    if (infringing.length && (await this.settings(accountId)).auto_group) await this.autoGroup(accountId, infringing);
  }

  private async leaveOpenCases(accountId: number, matchIds: string[]): Promise<void> {
    await this.inTransaction(accountId, async (tx) => {
      const cases = (await tx.query(
        `SELECT DISTINCT c.id FROM cases c JOIN cases_matches m ON m.case_id = c.id WHERE c.account_id = $1 AND c.state = 'open' AND m.match_id = ANY($2)`,
        [accountId, matchIds],
      )) as { id: number }[];
      for (const { id } of cases) {
        const c = await this.get(accountId, id, tx);
        const removed = await this.deleteMatches(tx, c, matchIds);
        await this.record(tx, c, { action: 'matches_removed', actor: SYSTEM, note: 'No longer marked infringing.', detail: { match_ids: removed } });
      }
    });
  }

  private async autoGroup(accountId: number, matchIds: string[]): Promise<void> {
    const found = await this.factsOf(accountId, matchIds);
    const facts = matchIds.flatMap((id) => found.get(id) ?? []);
    const bySite = new Map<string, MatchFacts[]>();
    for (const f of facts) if (f.site) bySite.set(f.site, [...(bySite.get(f.site) ?? []), f]);
    await this.inTransaction(accountId, async (tx) => {
      const busy = new Set(
        ((await tx.query(
          `SELECT m.match_id FROM cases_matches m JOIN cases c ON c.id = m.case_id WHERE m.account_id = $1 AND m.match_id = ANY($2) AND c.state <> 'closed'`,
          [accountId, facts.map((f) => f.match_id)],
        )) as { match_id: string }[]).map((r) => r.match_id),
      );
      for (const [site, all] of bySite) {
        const free = all.filter((f) => !busy.has(f.match_id));
        if (free.length === 0) continue;
        const open = (await tx.query(`SELECT id FROM cases WHERE account_id = $1 AND site = $2 AND state = 'open' ORDER BY id LIMIT 1`, [accountId, site])) as { id: number }[];
        if (open[0]) {
          const c = await this.get(accountId, open[0].id, tx);
          const added = await this.insertMatches(tx, c, free);
          await this.record(tx, c, { action: 'matches_added', actor: SYSTEM, note: 'Marked infringing: joined its site\'s open case.', detail: { match_ids: added } });
        } else {
          await this.openCase(tx, accountId, SYSTEM, defaultTitle(site, free.length), site, free, 'Opened for the site\'s infringing matches.');
        }
      }
    });
  }

  async settings(accountId: number): Promise<{ auto_group: boolean; rights_holder: RightsHolderDefaults | null }> {
    const rows = (await this.db.query('SELECT auto_group, rights_holder FROM cases_settings WHERE account_id = $1', [accountId])) as { auto_group: boolean; rights_holder: RightsHolderDefaults | null }[];
    return rows[0] ?? { auto_group: true, rights_holder: null };
  }

  async updateSettings(accountId: number, change: { auto_group?: boolean; rights_holder?: RightsHolderDefaults | null }) {
    const now = await this.settings(accountId);
    const next = { auto_group: change.auto_group ?? now.auto_group, rights_holder: change.rights_holder === undefined ? now.rights_holder : change.rights_holder };
    await this.db.query(
      `INSERT INTO cases_settings (account_id, auto_group, rights_holder) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET auto_group = EXCLUDED.auto_group, rights_holder = EXCLUDED.rights_holder`,
      [accountId, next.auto_group, next.rights_holder === null ? null : JSON.stringify(next.rights_holder)],
    );
    return next;
  }

  /** The account-deleted hook's rows (NoticeService.forgetAccount deletes the files first). */
  async forgetAccount(accountId: number): Promise<void> {
    await this.db.query('DELETE FROM cases WHERE account_id = $1', [accountId]);
    await this.db.query('DELETE FROM cases_settings WHERE account_id = $1', [accountId]);
  }

  /** The match as a notice names it, fresh from the matches plugin; null when it is gone. */
  async facts(accountId: number, matchId: string): Promise<MatchFacts | null> {
    return (await this.factsOf(accountId, [matchId])).get(matchId) ?? null;
  }

  /** The facts of several matches, one query per 5,000 (not one per match); a match gone is absent. */
  async factsOf(accountId: number, matchIds: string[]): Promise<Map<string, MatchFacts>> {
    const out = new Map<string, MatchFacts>();
    for (let i = 0; i < matchIds.length; i += 5000) {
      const chunk = matchIds.slice(i, i + 5000);
      for (const r of await this.matches.refs(accountId, { ids: chunk }, { limit: chunk.length })) {
        out.set(r.id, {
          match_id: r.id,
          media_id: r.mediaId,
          site: (r.siteDomain || r.host || null)?.toLowerCase() ?? null,
          page_url: r.pageUrl,
          image_url: r.imageUrl || null,
          first_seen: r.dateCreated,
          last_seen: r.dateUpdated,
        });
      }
    }
    return out;
  }

  /** Each id a match of the account (400 otherwise) whose review state is infringing (409 otherwise). */
  async infringingMatches(accountId: number, matchIds: string[]): Promise<MatchFacts[]> {
    const found = await this.factsOf(accountId, matchIds);
    const unknown = matchIds.filter((id) => !found.has(id));
    if (unknown.length) throw badRequest('unknown_matches', `No such match in this account: ${unknown.join(', ')}.`);
    await this.assertInfringing(accountId, matchIds);
    return matchIds.map((id) => found.get(id)!);
  }

  async assertInfringing(accountId: number, matchIds: string[]): Promise<void> {
    const states = await this.review.states(accountId, matchIds);
    const not = matchIds.filter((id) => states.get(id)?.state !== 'infringing');
    if (not.length) {
      // The review service answers for every existing match (never reviewed: new); one it does not know was deleted (with its media).
      const said = not.map((id) => `${id} (${states.get(id)?.state ?? 'deleted'})`).join(', ');
      const gone = not.some((id) => !states.has(id)) ? ' Take deleted matches out of the case.' : '';
      throw conflict('not_infringing', `Only matches reviewed as infringing join a case or a notice; these are not: ${said}.${gone}`);
    }
  }

  /** Runs `work` in a transaction holding the account's case lock, then asks for the events' delivery. */
  async inTransaction<T>(accountId: number, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    const result = await this.db.transaction(async (tx) => {
      // One writer per account at a time: "a match is in one open case" holds without races.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('cases'), $1)`, [accountId]);
      return work(tx);
    });
    await this.events.flush();
    return result;
  }

  private async assertFree(tx: EntityManager, accountId: number, matchIds: string[], exceptCase: number | null): Promise<void> {
    const taken = (await tx.query(
      `SELECT m.match_id, c.id FROM cases_matches m JOIN cases c ON c.id = m.case_id
       WHERE m.account_id = $1 AND m.match_id = ANY($2) AND c.state <> 'closed' AND c.id <> $3`,
      [accountId, matchIds, exceptCase ?? 0],
    )) as { match_id: string; id: number }[];
    if (taken.length) throw conflict('match_in_other_case', `Already in another case that is not closed: ${taken.map((t) => `match ${t.match_id} (case ${t.id})`).join(', ')}.`);
  }

  private async openCase(tx: EntityManager, accountId: number, actor: Actor, title: string, site: string | null, facts: MatchFacts[], note: string | null): Promise<number> {
    const now = this.clock.now();
    const [{ id }] = (await tx.query(
      `INSERT INTO cases (account_id, title, site, state, resolution, created, updated) VALUES ($1, $2, $3, 'open', NULL, $4, $4) RETURNING id`,
      [accountId, title, site, now],
    )) as { id: number }[];
    const c = await this.get(accountId, id, tx);
    await this.insertMatches(tx, c, facts);
    await this.record(tx, c, { action: 'opened', actor, to: 'open', note, detail: { match_ids: facts.map((f) => f.match_id) } }, 'case.opened');
    return id;
  }

  private async insertMatches(tx: EntityManager, c: CaseRow, facts: MatchFacts[]): Promise<string[]> {
    const added: string[] = [];
    for (const f of facts) {
      const rows = (await tx.query(
        `INSERT INTO cases_matches (case_id, account_id, match_id, media_id, site, page_url, image_url, first_seen, last_seen, added)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING match_id`,
        [c.id, c.account_id, f.match_id, f.media_id, f.site, f.page_url, f.image_url, f.first_seen, f.last_seen, this.clock.now()],
      )) as unknown[];
      if (rows.length) added.push(f.match_id);
    }
    return added;
  }

  private async deleteMatches(tx: EntityManager, c: CaseRow, matchIds: string[]): Promise<string[]> {
    const rows = returnedRows<{ match_id: string }>(await tx.query('DELETE FROM cases_matches WHERE case_id = $1 AND match_id = ANY($2) RETURNING match_id', [c.id, matchIds]));
    return rows.map((r) => r.match_id).sort();
  }

  private async setState(tx: EntityManager, c: CaseRow, to: CaseState, resolution: Resolution | null, actor: Actor, note: string | null, action: string, detail: Record<string, unknown> = {}) {
    await tx.query('UPDATE cases SET state = $2, resolution = $3, updated = $4 WHERE id = $1', [c.id, to, resolution, this.clock.now()]);
    await this.record(tx, c, { action, actor, from: c.state, to, resolution, note, detail });
  }

  /** The history row and the event of one change, in the change's transaction. */
  async record(
    tx: Pick<EntityManager, 'query'>,
    c: CaseRow,
    entry: { action: string; actor: Actor; from?: CaseState; to?: CaseState; resolution?: Resolution | null; note?: string | null; detail?: Record<string, unknown> },
    type: 'case.opened' | 'case.updated' = 'case.updated',
  ): Promise<void> {
    const now = this.clock.now();
    // The case as the change left it (title, state, matches), returned by the statement that stamps it.
    const [fresh] = returnedRows<Pick<CaseRow, 'id' | 'title' | 'site' | 'state' | 'resolution'> & { match_ids: string[] }>(
      await tx.query(
        `UPDATE cases c SET updated = $2 WHERE c.id = $1
         RETURNING c.id, c.title, c.site, c.state, c.resolution,
           ARRAY(SELECT m.match_id FROM cases_matches m WHERE m.case_id = c.id ORDER BY m.added, m.match_id) AS match_ids`,
        [c.id, now],
      ),
    );
    if (!fresh) throw notFound('No such case.');
    await tx.query(
      `INSERT INTO cases_history (case_id, account_id, at, action, from_state, to_state, resolution, actor, note, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [c.id, c.account_id, now, entry.action, entry.from ?? null, entry.to ?? null, entry.resolution ?? null, JSON.stringify(entry.actor), entry.note ?? null, JSON.stringify(entry.detail ?? {})],
    );
    await this.events.enqueue(
      {
        type,
        accountId: c.account_id,
        occurredAt: now,
        data: {
          id: String(fresh.id), title: fresh.title, site: fresh.site, state: fresh.state, resolution: fresh.resolution, match_ids: fresh.match_ids,
          change: { action: entry.action, from_state: entry.from ?? null, to_state: entry.to ?? null, actor: entry.actor, note: entry.note ?? null, ...(entry.detail ?? {}) },
        },
      },
      tx,
      { key: `case:${c.id}` },
    );
  }
}

export interface MatchFacts {
  match_id: string;
  media_id: string | null;
  site: string | null;
  page_url: string | null;
  image_url: string | null;
  first_seen: Date;
  last_seen: Date;
}

/** Defaults for notices, kept per account (`PATCH /api/v4/cases/settings/`). */
export interface RightsHolderDefaults {
  name?: string;
  email?: string;
  address?: string;
  phone?: string;
}

const defaultTitle = (site: string | null, n: number) => (site ? `${site}` : `${n} match${n === 1 ? '' : 'es'}`);
