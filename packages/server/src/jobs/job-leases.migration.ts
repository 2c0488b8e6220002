import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The jobs each process is running, with that process's heartbeat: a job whose process stopped
 * heartbeating (kill -9, a lost machine) is handed back to pg-boss for a retry (job-runner.ts).
 */
export class JobLeases1796100000000 implements MigrationInterface {
  name = 'JobLeases1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE job_leases (
        job_id uuid PRIMARY KEY,
        queue text NOT NULL,
        process text NOT NULL,
        heartbeat timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX job_leases_process ON job_leases (process)');
    await q.query('CREATE INDEX job_leases_heartbeat ON job_leases (heartbeat)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE job_leases');
  }
}
