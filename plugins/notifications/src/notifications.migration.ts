import type { MigrationInterface, QueryRunner } from 'typeorm';

export class NotificationsInit1764000010000 implements MigrationInterface {
  name = 'NotificationsInit1764000010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE notification_matches (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        match_id text NOT NULL,
        kind text NOT NULL,
        page_url text,
        domain text,
        country text,
        created timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX notification_matches_account ON notification_matches (account_id, created)');
    await q.query(`
      CREATE TABLE notification_outbox (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        reason text NOT NULL,
        to_address text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        status text NOT NULL,
        error text,
        created timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      )`);
    await q.query('CREATE INDEX notification_outbox_account ON notification_outbox (account_id, created)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE notification_outbox');
    await q.query('DROP TABLE notification_matches');
  }
}
