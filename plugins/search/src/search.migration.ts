import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SearchInit1763700005000 implements MigrationInterface {
  name = 'SearchInit1763700005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE searches (
        id uuid PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        home text NOT NULL,
        base_url text NOT NULL,
        kind text NOT NULL,
        name text,
        query jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'running', 'complete', 'failed')),
        matches jsonb,
        error jsonb,
        created timestamptz NOT NULL DEFAULT now(),
        finished timestamptz
      )`);
    await q.query('CREATE INDEX searches_account ON searches (account_id, created DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE searches');
  }
}
