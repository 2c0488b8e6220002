import type { MigrationInterface, QueryRunner } from 'typeorm';

/** One row: an HMAC of a fixed text under the master key, so a wrong key is refused at start. */
export class MasterKeyCheck1763900000000 implements MigrationInterface {
  name = 'MasterKeyCheck1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE master_key_check (
        id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        check_value text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE master_key_check');
  }
}
