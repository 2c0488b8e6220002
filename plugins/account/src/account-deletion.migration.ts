import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An account being deleted carries the time it was asked for until its row goes (the deletion job's to-do list). */
export class AccountDeletion1764100000000 implements MigrationInterface {
  name = 'AccountDeletion1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE account_profiles ADD COLUMN deletion_requested timestamptz');
    await q.query('CREATE INDEX account_profiles_deleting ON account_profiles (deletion_requested) WHERE deletion_requested IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE account_profiles DROP COLUMN deletion_requested');
  }
}
