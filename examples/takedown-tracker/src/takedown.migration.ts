import type { MigrationInterface, QueryRunner } from '@filigrane/plugin-api';

export class TakedownInit1767225700000 implements MigrationInterface {
  name = 'TakedownInit1767225700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE takedown_requests (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        match_id text,
        page_url text NOT NULL,
        status text NOT NULL DEFAULT 'open',
        opened_at timestamptz NOT NULL
      )`);
    await q.query('CREATE UNIQUE INDEX takedown_requests_account_page ON takedown_requests (account_id, page_url)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE takedown_requests');
  }
}
