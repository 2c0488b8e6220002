import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiError, returnedRows, TOKENS, type Clock } from '@filigrane/core';

/** Failures allowed before a back-off, the first back-off and its cap, in seconds. */
interface Policy {
  allowance: number;
  base: number;
  cap: number;
}

/**
 * The throttle's policies (docs/api-decisions.md, "Credential guessing"):
 * - `address`: failed credentials of any kind from one client address;
 * - `pair`: failed client secrets for one client id from one address;
 * - `client`: failed client secrets for one client id from anywhere. It only holds back addresses
 *   that already failed against that client: a correct secret from a fresh address still works.
 * The back-off doubles with each failure past the allowance, up to the cap, so an attacker can
 * never push the rightful owner out for longer than the cap.
 */
export const THROTTLE_POLICIES = {
  address: { allowance: 10, base: 1, cap: 300 },
  pair: { allowance: 5, base: 1, cap: 300 },
  client: { allowance: 20, base: 1, cap: 60 },
} satisfies Record<string, Policy>;

/** Failures older than this are forgotten (a counter starts afresh). */
export const THROTTLE_FORGET_SECONDS = 3600;

export interface ThrottleKeys {
  address: string;
  /** The OAuth client id tried, for client secrets. */
  client?: string;
}

interface Row {
  subject: string;
  was_blocked: boolean;
  /** Failures recorded before this attempt (0 for a fresh or forgotten subject). */
  before: number;
  retry_ms: number;
}

const subjectsOf = (k: ThrottleKeys) => {
  const out: { subject: string; policy: Policy }[] = [{ subject: `addr:${k.address}`, policy: THROTTLE_POLICIES.address }];
  if (k.client !== undefined) {
    out.push({ subject: `pair:${k.client.slice(0, 200)}|${k.address}`, policy: THROTTLE_POLICIES.pair });
    out.push({ subject: `client:${k.client.slice(0, 200)}`, policy: THROTTLE_POLICIES.client });
  }
  return out;
};

export const tooManyFailures = (retryAfter: number) =>
  new ApiError(429, 'too_many_failed_attempts', `Too many failed credentials; try again in ${retryAfter} seconds.`, undefined, { 'retry-after': String(retryAfter) });

/**
 * Counts failed credentials in PostgreSQL (table auth_throttle), so every API process sharing
 * the database applies one throttle. Times come from the app's clock.
 */
@injectable()
export class CredentialThrottle {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  /**
   * Runs a secret check under the throttle, counting the attempt as a failure before it is made
   * (so a burst of simultaneous guesses is held back as well as a sequence) and giving it back
   * when `check` succeeds. Throws 429 without calling `check` while the attempt is held back.
   */
  async guard<T>(keys: ThrottleKeys, check: () => Promise<T | null>): Promise<T | null> {
    const subjects = subjectsOf(keys);
    const rows = await this.count(subjects, 1);
    const pairBefore = rows.find((r) => r.subject.startsWith('pair:'))?.before ?? 0;
    // The client-wide back-off holds back only addresses that already failed against this client.
    const held = rows.filter((r) => r.was_blocked && (!r.subject.startsWith('client:') || pairBefore > 0));
    if (held.length) {
      // Not an attempt: its provisional count is given back where it was made.
      await this.count(subjects.filter((s) => !rows.find((r) => r.subject === s.subject)?.was_blocked), -1);
      throw tooManyFailures(Math.max(1, ...held.map((r) => Math.ceil(r.retry_ms / 1000))));
    }
    const result = await check();
    if (result !== null) {
      // A right secret: its pair starts afresh; the address and the client get this attempt back.
      await this.db.query('DELETE FROM auth_throttle WHERE subject = ANY($1::text[])', [subjects.filter((s) => s.subject.startsWith('pair:')).map((s) => s.subject)]);
      await this.count(subjects.filter((s) => !s.subject.startsWith('pair:')), -1);
    }
    return result;
  }

  /**
   * For credentials that cannot be guessed (240-bit API keys and bearer tokens) and are checked
   * on every request: nothing is written when they are right; a wrong one is counted against the
   * address, and answered 429 instead of 401 while the address is held back.
   */
  async failed(keys: ThrottleKeys): Promise<void> {
    const rows = await this.count(subjectsOf({ address: keys.address }), 1);
    const held = rows.filter((r) => r.was_blocked || r.retry_ms > 0);
    if (held.length) throw tooManyFailures(Math.max(1, ...held.map((r) => Math.ceil(r.retry_ms / 1000))));
  }

  /**
   * Adds `delta` failures to each subject not held back (a held-back subject is not counted: the
   * back-off grows with real attempts only). Past the allowance, the subject is held back for
   * base * 2^(failures - allowance - 1) seconds, capped.
   */
  private async count(targets: { subject: string; policy: Policy }[], delta: 1 | -1): Promise<Row[]> {
    if (!targets.length) return [];
    const policies = targets.map((t) => t.policy);
    // One upsert per subject, atomic under concurrent attempts from any process; the row keeps
    // what it was before this attempt (prev_*) so the statement can answer with it.
    const old = `CASE WHEN a.last_failure < $5::timestamptz - make_interval(secs => $7) THEN 0 ELSE a.failures END`;
    const blocked = `(a.blocked_until IS NOT NULL AND a.blocked_until > $5::timestamptz)`;
    const next = `GREATEST(0, ${old} + $6::int)`;
    const backoff = (failures: string, p: string) =>
      `$5::timestamptz + make_interval(secs => LEAST(${p}.cap, ${p}.base * power(2, LEAST(30, ${failures} - ${p}.allowance - 1))))`;
    return returnedRows<Row>(await this.db.query(
      `INSERT INTO auth_throttle AS a (subject, failures, last_failure, blocked_until, prev_blocked, prev_failures, allowance, base, cap)
       SELECT subject, GREATEST(0, $6::int), $5::timestamptz,
              CASE WHEN $6::int > allowance THEN ${backoff('$6::int', 't')} END, false, 0, allowance, base, cap
       FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[]) AS t(subject, allowance, base, cap)
       ON CONFLICT (subject) DO UPDATE SET
         allowance = EXCLUDED.allowance, base = EXCLUDED.base, cap = EXCLUDED.cap,
         prev_blocked = ${blocked},
         prev_failures = ${old},
         failures = CASE WHEN ${blocked} AND $6::int > 0 THEN ${old} ELSE ${next} END,
         last_failure = CASE WHEN $6::int > 0 AND NOT ${blocked} THEN $5::timestamptz ELSE a.last_failure END,
         blocked_until = CASE
           WHEN ${blocked} AND $6::int > 0 THEN a.blocked_until
           WHEN ${next} <= EXCLUDED.allowance THEN NULL
           WHEN $6::int > 0 THEN ${backoff(next, 'EXCLUDED')}
           ELSE a.blocked_until END
       RETURNING subject, prev_blocked AS was_blocked, prev_failures AS before,
         GREATEST(0, EXTRACT(EPOCH FROM (COALESCE(blocked_until, $5::timestamptz) - $5::timestamptz)) * 1000)::float8 AS retry_ms`,
      [targets.map((t) => t.subject), policies.map((p) => p.allowance), policies.map((p) => p.base), policies.map((p) => p.cap), this.clock.now(), delta, THROTTLE_FORGET_SECONDS],
    ));
  }

  /** Drops counters nobody failed on for a while; run by a scheduled job. */
  async purge(): Promise<void> {
    await this.db.query(`DELETE FROM auth_throttle WHERE last_failure < $1 AND (blocked_until IS NULL OR blocked_until < $2)`, [
      new Date(this.clock.now().getTime() - THROTTLE_FORGET_SECONDS * 1000),
      this.clock.now(),
    ]);
  }
}
