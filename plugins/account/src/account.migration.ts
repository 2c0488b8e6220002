import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AccountInit1763700002000 implements MigrationInterface {
  name = 'AccountInit1763700002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE account_profiles (
        account_id integer PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        incidents text,
        expires date,
        image_count integer NOT NULL DEFAULT 0,
        image_quota integer,
        disk_usage bigint NOT NULL DEFAULT 0,
        disk_quota bigint,
        quotas jsonb NOT NULL DEFAULT '{}',
        lang text NOT NULL DEFAULT 'en',
        notifications jsonb NOT NULL DEFAULT '{}',
        notif_site_countries text[] NOT NULL DEFAULT '{}',
        public_key_der bytea NOT NULL,
        sealed_private_key text NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE account_profiles');
  }
}
