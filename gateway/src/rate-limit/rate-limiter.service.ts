import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { TOKENS, type AppConfig, type Clock } from '@filigrane/core';

export interface RateLimitState {
  headers: Record<string, string>;
  /** Seconds to wait when a limit is exceeded; undefined when the request may go on. */
  retryAfter?: number;
}

const DAY_MS = 86_400_000;

/**
 * Per-second and per-day request windows per subject (account or client address).
 * Counters live in PostgreSQL so every API process sharing the database enforces one limit;
 * one statement per request bumps both windows.
 */
@injectable()
export class RateLimiter {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Config) private readonly config: AppConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async hit(subject: string): Promise<RateLimitState> {
    const { perSecond, perDay } = this.config.rateLimit;
    const now = this.clock.now().getTime();
    const second = new Date(now - (now % 1000));
    const day = new Date(now - (now % DAY_MS));
    const rows: { window_kind: string; hits: number }[] = await this.db.query(
      `INSERT INTO rate_limit_counters (subject, window_kind, window_start, hits)
       VALUES ($1, 's', $2, 1), ($1, 'd', $3, 1)
       ON CONFLICT (subject, window_kind, window_start)
       DO UPDATE SET hits = rate_limit_counters.hits + 1
       RETURNING window_kind, hits`,
      [subject, second, day],
    );
    const secondHits = rows.find((r) => r.window_kind === 's')?.hits ?? 1;
    const dayHits = rows.find((r) => r.window_kind === 'd')?.hits ?? 1;
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
