import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { TOKENS, type AppConfig, type Clock } from '@filigrane/core';

export interface RateLimitState {
  headers: Record<string, string>;
  /** Seconds to wait when a limit is exceeded; undefined when the request may go on. */
  retryAfter?: number;
}

const DAY_MS = 86_400_000;

interface Waiter {
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

  hit(subject: string): Promise<RateLimitState> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(subject) ?? [];
      waiters.push({ resolve, reject });
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
    const counts = subjects.map((s) => batch.get(s)!.length);
    try {
      const rows: { subject: string; window_kind: string; hits: number }[] = await this.db.query(
        `INSERT INTO rate_limit_counters (subject, window_kind, window_start, hits)
         SELECT t.subject, w.kind, w.start, t.n
         FROM unnest($1::text[], $2::int[]) AS t(subject, n)
         CROSS JOIN (VALUES ('s', $3::timestamptz), ('d', $4::timestamptz)) AS w(kind, start)
         ON CONFLICT (subject, window_kind, window_start)
         DO UPDATE SET hits = rate_limit_counters.hits + EXCLUDED.hits
         RETURNING subject, window_kind, hits`,
        [subjects, counts, second, day],
      );
      const totals = new Map(rows.map((r) => [`${r.subject}\u0000${r.window_kind}`, r.hits]));
      subjects.forEach((subject, i) => {
        const n = counts[i]!;
        const secondTotal = totals.get(`${subject}\u0000s`) ?? n;
        const dayTotal = totals.get(`${subject}\u0000d`) ?? n;
        batch.get(subject)!.forEach((w, k) => w.resolve(this.state(secondTotal - n + k + 1, dayTotal - n + k + 1, now, day)));
      });
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }

  private state(secondHits: number, dayHits: number, now: number, day: Date): RateLimitState {
    const { perSecond, perDay } = this.config.rateLimit;
    const headers = {
      'x-ratelimit-secondly': String(perSecond),
      'x-ratelimit-secondly-remaining': String(Math.max(0, perSecond - secondHits)),
      'x-ratelimit-daily': String(perDay),
      'x-ratelimit-daily-remaining': String(Math.max(0, perDay - dayHits)),
    };
    if (dayHits > perDay) return { headers, retryAfter: Math.max(1, Math.ceil((day.getTime() + DAY_MS - now) / 1000)) };
    if (secondHits > perSecond) return { headers, retryAfter: 1 };
    return { headers };
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
