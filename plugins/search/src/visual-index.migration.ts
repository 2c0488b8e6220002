import type { MigrationInterface, QueryRunner } from 'typeorm';

export class VisualIndexInit1763700007000 implements MigrationInterface {
  name = 'VisualIndexInit1763700007000';

  async up(q: QueryRunner): Promise<void> {
    // ON DELETE CASCADE: a deleted media leaves the index in the same transaction, whoever deletes it.
    await q.query(`
      CREATE TABLE visual_index (
        media_id bigint PRIMARY KEY REFERENCES media(id) ON DELETE CASCADE,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        width integer NOT NULL,
        height integer NOT NULL,
        count integer NOT NULL,
        points bytea NOT NULL,
        descriptors bytea NOT NULL,
        dhash bytea NOT NULL,
        thumb bytea NOT NULL,
        indexed_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Warm-up loads one account; other processes catch up with rows indexed since their last look.
    await q.query('CREATE INDEX visual_index_account ON visual_index (account_id, indexed_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE visual_index');
  }
}
