import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WatermarkingInit1763700006000 implements MigrationInterface {
  name = 'WatermarkingInit1763700006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE watermarking_jobs (
        id uuid PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('pending', 'running', 'complete', 'failed')),
        format text NOT NULL CHECK (format IN ('jpeg', 'png', 'gif')),
        error jsonb,
        created timestamptz NOT NULL,
        finished timestamptz,
        expires timestamptz NOT NULL
      )`);
    // The purge job scans by expiry; status polls go by primary key.
    await q.query('CREATE INDEX watermarking_jobs_expires ON watermarking_jobs (expires)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE watermarking_jobs');
  }
}
