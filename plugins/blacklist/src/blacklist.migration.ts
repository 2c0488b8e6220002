import type { MigrationInterface, QueryRunner } from 'typeorm';

export class BlacklistInit1763700003000 implements MigrationInterface {
  name = 'BlacklistInit1763700003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE blacklisted_domains (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        domain text NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, domain)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE blacklisted_domains');
  }
}
