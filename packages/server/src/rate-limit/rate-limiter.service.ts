import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { TOKENS, type AppConfig, type Clock } from '@filigrane/core';

export interface RateLimitState {
  headers: Record<string, string>;
  /** Seconds to wait when a limit is exceeded; undefined when the request may go on. */
  retryAfter?: number;
}

/** Who a request counts against: its account when it is signed in, else its client address. */
export const rateSubject = (principal: { accountId: number } | null | undefined, ip: string): string => (principal ? `account:${principal.accountId}` : `ip:${ip}`);

const DAY_MS = 86_400_000;

interface Waiter {
  /** How many requests this one counts as (a costly GraphQL query counts several). */
  weight: number;
  resolve(state: RateLimitState): void;
  reject(err: unknown): void;
}

/**
 * Per-second and per-day request windows per subject (account or client address).
 * Counters live in PostgreSQL so every API process sharing the database enforces one limit.
 * Requests arriving together are counted in one statement (one round trip for the batch, not
 * one per request); each still gets its own position in the window from the returned totals.
 */
@injectable()
export class RateLimiter {
  private pending = new Map<string, Waiter[]>();
  private scheduled = false;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Config) private readonly config: AppConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  hit(subject: string, weight = 1): Promise<RateLimitState> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(subject) ?? [];
      waiters.push({ weight: Math.max(1, Math.floor(weight)), resolve, reject });
      this.pending.set(subject, waiters);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    const now = this.clock.now().getTime();
    const second = new Date(now - (now % 1000));
    const day = new Date(now - (now % DAY_MS));
    const subjects = [...batch.keys()];
    const counts = subjects.map((s) => batch.get(s)!.reduce((n, w) => n + w.weight, 0));
    const { perSecond, perDay } = this.config.rateLimit;
    try {
      // One statement: the second window counts every request; the day window counts only those
      // the second window let through. Requests beyond the daily limit are given back just below,
      // so no 429 costs daily quota.
      const rows: { subject: string; second_hits: number; day_hits: number; day_added: number }[] = await this.db.query(
        `WITH t AS (SELECT * FROM unnest($1::text[], $2::int[]) AS t(subject, n)),
         s AS (
           INSERT INTO rate_limit_counters (subject, window_kind, window_start, hits)
           SELECT subject, 's', $3::timestamptz, n FROM t
           ON CONFLICT (subject, window_kind, window_start) DO UPDATE SET hits = rate_limit_counters.hits + EXCLUDED.hits
           RETURNING subject, hits),
         passed AS (SELECT t.subject, LEAST(t.n, GREATEST(0, $5::int - (s.hits - t.n))) AS n FROM t JOIN s USING (subject)),
         d AS (
           INSERT INTO rate_limit_counters (subject, window_kind, window_start, hits)
           SELECT subject, 'd', $4::timestamptz, n FROM passed
           ON CONFLICT (subject, window_kind, window_start) DO UPDATE SET hits = rate_limit_counters.hits + EXCLUDED.hits
           RETURNING subject, hits)
         SELECT s.subject, s.hits AS second_hits, d.hits AS day_hits, passed.n AS day_added
         FROM s JOIN d USING (subject) JOIN passed USING (subject)`,
        [subjects, counts, second, day, perSecond],
      );
      const bySubject = new Map(rows.map((r) => [r.subject, r]));
      const refunds = new Map<string, number>();
      subjects.forEach((subject, i) => {
        const n = counts[i]!;
        const row = bySubject.get(subject);
        const secondTotal = row?.second_hits ?? n;
        const dayTotal = row?.day_hits ?? 0;
        const passed = row?.day_added ?? 0;
        // The requests that passed the second window hold day positions dayTotal-passed+1..dayTotal.
        let dayPosition = dayTotal - passed;
        let position = secondTotal - n; // second-window hits before this batch's first request
        batch.get(subject)!.forEach((w) => {
          // A request of weight k takes k places; it passes when its last place is within the limit.
          position += w.weight;
          const secondHits = position;
          if (secondHits > perSecond) {
            // The SQL counted in the day those of its places that were within the second limit.
            const counted = Math.max(0, Math.min(w.weight, perSecond - (position - w.weight)));
            if (counted) {
              refunds.set(subject, (refunds.get(subject) ?? 0) + counted);
              dayPosition += counted;
            }
            return w.resolve(this.state(secondHits, Math.min(dayTotal, perDay), now, day, false));
          }
          dayPosition += w.weight;
          const overDay = dayPosition > perDay;
          if (overDay) refunds.set(subject, (refunds.get(subject) ?? 0) + w.weight);
          w.resolve(this.state(secondHits, dayPosition, now, day, overDay));
        });
      });
      if (refunds.size) await this.refund([...refunds.keys()], [...refunds.values()], day);
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }

  private state(secondHits: number, dayHits: number, now: number, day: Date, dayExceeded: boolean): RateLimitState {
    const { perSecond, perDay } = this.config.rateLimit;
    const headers = {
      'x-ratelimit-secondly': String(perSecond),
      'x-ratelimit-secondly-remaining': String(Math.max(0, perSecond - secondHits)),
      'x-ratelimit-daily': String(perDay),
      'x-ratelimit-daily-remaining': String(Math.max(0, perDay - dayHits)),
    };
    if (dayExceeded) return { headers, retryAfter: Math.max(1, Math.ceil((day.getTime() + DAY_MS - now) / 1000)) };
    if (secondHits > perSecond) return { headers, retryAfter: 1 };
    return { headers };
  }

  /** Gives back the daily counts of requests refused by the daily limit. */
  private async refund(subjects: string[], counts: number[], day: Date): Promise<void> {
    await this.db
      .query(
        `UPDATE rate_limit_counters c SET hits = GREATEST(0, c.hits - t.n)
         FROM unnest($1::text[], $2::int[]) AS t(subject, n)
         WHERE c.subject = t.subject AND c.window_kind = 'd' AND c.window_start = $3`,
        [subjects, counts, day],
      )
      .catch(() => undefined); // best effort: the answer (429) does not depend on it
  }

  /** Drops finished windows; run by a scheduled job. */
  async purge(): Promise<void> {
    const now = this.clock.now().getTime();
    await this.db.query(
      `DELETE FROM rate_limit_counters
       WHERE (window_kind = 's' AND window_start < $1) OR (window_kind = 'd' AND window_start < $2)`,
      [new Date(now - 60_000), new Date(now - 2 * DAY_MS)],
    );
  }
}
