import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Bytes each watermarking counts in its account's disk_usage while its assets live. */
export class WatermarkingQuota1763900000200 implements MigrationInterface {
  name = 'WatermarkingQuota1763900000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE watermarking_jobs ADD COLUMN bytes bigint NOT NULL DEFAULT 0');
    await q.query(`CREATE INDEX watermarking_jobs_active ON watermarking_jobs (account_id) WHERE status IN ('pending', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX watermarking_jobs_active');
    await q.query('ALTER TABLE watermarking_jobs DROP COLUMN bytes');
  }
}
