import {
  inject,
  injectable,
  notFound,
  returnedRows,
  TOKENS,
  validationError,
  type Clock,
  type DataSource,
  type JobQueue,
  type Logger,
  type LoggerFactory,
  type MediaReader,
} from '@filigrane/plugin-api';
import { MatchQueryService, type MatchRef } from '@filigrane/plugin-matches';
import { licenceFor, type LicenceRule } from './licence-scope.js';
import type { LicenseeInput } from './licensee-input.js';
import type { ReviewActor } from './review.api.js';
import { ReviewStore, type StateRow } from './review.service.js';
import { REVIEW_SETTINGS, type ReviewSettings } from './review.settings.js';

export const LICENCE_QUEUE = 'review.licences';

/** Who a licensee rule's changes are recorded as. */
const LICENCE_ACTOR: ReviewActor = { type: 'licensee', accountId: null, username: null, applicationId: null };

/** A rule may change a match nobody decided on: still new, or licensed by a rule. */
const ruleMayChange = (row: StateRow | undefined) => !row || row.state === 'new' || (row.state === 'licensed' && row.automatic);

export interface LicenseeRow {
  id: string;
  account_id: number;
  name: string;
  domain: string;
  include_subdomains: boolean;
  media_path: string | null;
  media_id: string | null;
  valid_from: Date | null;
  valid_until: Date | null;
  reference: string | null;
  created: Date;
  updated: Date;
}

const COLUMNS = 'id::text, account_id, name, domain, include_subdomains, media_path, media_id::text, valid_from, valid_until, reference, created, updated';

const ruleOf = (r: LicenseeRow): LicenceRule => ({
  id: r.id,
  name: r.name,
  reference: r.reference,
  domain: r.domain,
  includeSubdomains: r.include_subdomains,
  mediaPath: r.media_path,
  mediaId: r.media_id,
  validFrom: r.valid_from && new Date(r.valid_from),
  validUntil: r.valid_until && new Date(r.valid_until),
});

/** The note a rule's change carries: the licence named in words (its id is `license_id`). */
const licenceNote = (rule: LicenceRule) => `Licensed to ${rule.name}${rule.reference ? ` (${rule.reference})` : ''}.`;

/**
 * An account's licensees, and the rule they make: a match on a licensee's site (its subdomains when
 * it says so), of its media and within its dates is `licensed`, naming the licence. The rule applies
 * to each new match, and again to every match still new or licensed by a rule when the list changes;
 * it never overrides a person's decision.
 */
@injectable()
export class LicenseeService {
  private readonly log: Logger;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.MediaReader) private readonly media: MediaReader,
    @inject(TOKENS.Loggers) loggers: LoggerFactory,
    @inject(MatchQueryService) private readonly matches: MatchQueryService,
    @inject(ReviewStore) private readonly reviews: ReviewStore,
    @inject(REVIEW_SETTINGS.token) private readonly settings: ReviewSettings,
  ) {
    this.log = loggers.for('review');
  }

  async list(accountId: number, offset: number, limit: number): Promise<{ rows: LicenseeRow[]; count: number }> {
    const [{ n }] = await this.db.query('SELECT count(*)::int AS n FROM review_licensees WHERE account_id = $1', [accountId]);
    const rows: LicenseeRow[] = await this.db.query(`SELECT ${COLUMNS} FROM review_licensees WHERE account_id = $1 ORDER BY review_licensees.id LIMIT $2 OFFSET $3`, [accountId, limit, offset]);
    return { rows, count: n };
  }

  /** Every licensee of the account, in id order (exports, the rule). */
  async all(accountId: number): Promise<LicenseeRow[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM review_licensees WHERE account_id = $1 ORDER BY review_licensees.id`, [accountId]);
  }

  async get(accountId: number, id: string | undefined): Promise<LicenseeRow> {
    const rows: LicenseeRow[] = id && /^\d{1,15}$/.test(id) ? await this.db.query(`SELECT ${COLUMNS} FROM review_licensees WHERE account_id = $1 AND id = $2`, [accountId, id]) : [];
    if (!rows[0]) throw notFound('No such licensee.');
    return rows[0];
  }

  async create(accountId: number, input: LicenseeInput): Promise<LicenseeRow> {
    await this.checkMedia(accountId, input.media_id);
    const now = this.clock.now();
    const [row]: LicenseeRow[] = await this.db.query(
      `INSERT INTO review_licensees (account_id, name, domain, include_subdomains, media_path, media_id, valid_from, valid_until, reference, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING ${COLUMNS}`,
      [accountId, input.name, input.domain, input.include_subdomains ?? true, input.media_path ?? null, input.media_id ?? null, input.valid_from ?? null, input.valid_until ?? null, input.reference ?? null, now],
    );
    await this.listChanged(accountId);
    return row!;
  }

  async update(accountId: number, id: string | undefined, input: LicenseeInput): Promise<LicenseeRow> {
    const current = await this.get(accountId, id);
    await this.checkMedia(accountId, input.media_id);
    const next = { ...current, ...input };
    // Scope kept coherent across a partial change: one of media_path and media_id, from before until.
    if (input.media_path) next.media_id = null;
    if (input.media_id) next.media_path = null;
    if (next.valid_from && next.valid_until && new Date(next.valid_from) > new Date(next.valid_until)) {
      throw validationError([{ field: 'valid_until', code: 'invalid', details: 'valid_until is after valid_from.' }]);
    }
    const [row] = returnedRows<LicenseeRow>(await this.db.query(
      `UPDATE review_licensees SET name = $3, domain = $4, include_subdomains = $5, media_path = $6, media_id = $7, valid_from = $8, valid_until = $9,
         reference = $10, updated = $11 WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [accountId, current.id, next.name, next.domain, next.include_subdomains, next.media_path, next.media_id, next.valid_from, next.valid_until, next.reference, this.clock.now()],
    ));
    await this.listChanged(accountId);
    return row!;
  }

  async remove(accountId: number, id: string | undefined): Promise<void> {
    const current = await this.get(accountId, id);
    await this.db.query('DELETE FROM review_licensees WHERE account_id = $1 AND id = $2', [accountId, current.id]);
    await this.listChanged(accountId);
  }

  private async checkMedia(accountId: number, mediaId: string | null | undefined): Promise<void> {
    if (!mediaId) return;
    const found = await this.media.byIds([Number(mediaId)], accountId);
    if (found.length === 0) throw validationError([{ field: 'media_id', code: 'not_found', details: `No media ${mediaId} in this account.` }]);
  }

  /**
   * The list changed: the rule is applied again to the account's matches, within the request for a
   * small account, by a job for a large one. A generation counter makes a change made while the job
   * runs (its send then dropped by the singleton key) run it once more.
   */
  private async listChanged(accountId: number): Promise<'done' | 'queued'> {
    await this.db.query(
      `INSERT INTO review_licence_runs (account_id, requested) VALUES ($1, 1)
       ON CONFLICT (account_id) DO UPDATE SET requested = review_licence_runs.requested + 1`,
      [accountId],
    );
    if ((await this.matches.count(accountId, {})) <= this.settings.licenceSyncMax) {
      try {
        await this.reapply(accountId);
        return 'done';
      } catch (err) {
        // The list is saved: a job finishes what the request could not (the generation is still pending).
        this.log.warn(`licensees of account ${accountId}: re-application in the request failed (${(err as Error).message}); queued`);
      }
    }
    await this.jobs.send(LICENCE_QUEUE, { accountId }, { singletonKey: `account:${accountId}`, retryLimit: 5, retryDelaySeconds: 10 });
    return 'queued';
  }

  /** The job (and the small-account path): applies the rule until no change was asked for meanwhile. */
  async reapply(accountId: number): Promise<number> {
    let changed = 0;
    for (let round = 0; round < 10; round++) {
      const [run]: { requested: number; applied: number }[] = await this.db.query('SELECT requested, applied FROM review_licence_runs WHERE account_id = $1', [accountId]);
      if (!run || run.applied >= run.requested) break;
      changed += await this.applyToAll(accountId);
      await this.db.query('UPDATE review_licence_runs SET applied = GREATEST(applied, $2) WHERE account_id = $1', [accountId, run.requested]);
    }
    return changed;
  }

  /** The rule over every match of the account, in batches of 1,000 (each batch one transaction). */
  private async applyToAll(accountId: number): Promise<number> {
    const rules = (await this.all(accountId)).map(ruleOf);
    let changed = 0;
    let afterId: string | undefined;
    for (;;) {
      const refs = await this.matches.refs(accountId, {}, { afterId, limit: 1000 });
      if (refs.length === 0) break;
      changed += await this.apply(accountId, rules, refs, true);
      afterId = refs[refs.length - 1]!.id;
      if (refs.length < 1000) break;
    }
    if (changed) this.log.info(`licensees re-applied to account ${accountId}: ${changed} match(es) changed`);
    return changed;
  }

  /** A new match (match.created, from the outbox): licensed at once when a licensee covers it. */
  async onMatchCreated(accountId: number, matchId: string): Promise<void> {
    const rules = (await this.all(accountId)).map(ruleOf);
    if (rules.length === 0) return;
    const refs = await this.reviews.refsByIds(accountId, [matchId]);
    if (refs.length) await this.apply(accountId, rules, refs, false);
  }

  /**
   * Licensed (naming the licence) where a rule covers the match; back to new where a rule had
   * licensed it and none covers it any more (`release`: a list change, not a new match).
   */
  private async apply(accountId: number, rules: LicenceRule[], refs: MatchRef[], release: boolean): Promise<number> {
    const current = await this.reviews.rows(accountId, refs.map((r) => r.id));
    const needPaths = rules.some((r) => r.mediaPath !== null);
    const mediaIds = [...new Set(refs.map((r) => r.mediaId).filter((m): m is string => m !== null))];
    const paths = needPaths && mediaIds.length ? new Map((await this.media.byIds(mediaIds.map(Number), accountId)).map((m) => [String(m.id), m.path])) : new Map<string, string>();
    const byLicence = new Map<LicenceRule, string[]>();
    const released: string[] = [];
    for (const ref of refs) {
      const row = current.get(ref.id);
      if (!ruleMayChange(row)) continue;
      const rule = licenceFor(rules, { host: ref.host, mediaId: ref.mediaId, mediaPath: ref.mediaId ? (paths.get(ref.mediaId) ?? null) : null, seenAt: ref.dateCreated });
      if (rule) {
        if (row?.state !== 'licensed' || row.license_id !== rule.id) byLicence.set(rule, [...(byLicence.get(rule) ?? []), ref.id]);
      } else if (release && row?.state === 'licensed' && row.automatic) released.push(ref.id);
    }
    let changed = 0;
    for (const [rule, ids] of byLicence) {
      changed += await this.reviews.write(accountId, ids, { state: 'licensed', licenseId: rule.id, note: licenceNote(rule), automatic: true, actor: LICENCE_ACTOR, onlyIf: ruleMayChange });
    }
    if (released.length) {
      changed += await this.reviews.write(accountId, released, {
        state: 'new',
        licenseId: null,
        note: 'No licensee covers this match any more.',
        automatic: true,
        actor: LICENCE_ACTOR,
        onlyIf: (row) => !!row && row.state === 'licensed' && row.automatic,
      });
    }
    return changed;
  }
}
