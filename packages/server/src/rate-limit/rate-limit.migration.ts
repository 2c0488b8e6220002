import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RateLimitInit1763700000000 implements MigrationInterface {
  name = 'RateLimitInit1763700000000';

  async up(q: QueryRunner): Promise<void> {
    // UNLOGGED: no WAL per request; counters lost in a crash only reopen the current windows.
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_counters (
        subject text NOT NULL,
        window_kind char(1) NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (subject, window_kind, window_start)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rate_limit_counters');
  }
}
