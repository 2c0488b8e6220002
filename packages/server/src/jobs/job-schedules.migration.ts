import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Schedules plugins make at run time (`JobQueue.schedule`): one row per (queue, key), with its next run. */
export class JobSchedules1764400000000 implements MigrationInterface {
  name = 'JobSchedules1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE job_schedules (
        queue text NOT NULL,
        key text NOT NULL DEFAULT '',
        cron text NOT NULL,
        tz text NOT NULL DEFAULT 'UTC',
        data jsonb NOT NULL DEFAULT '{}',
        next_run timestamptz NOT NULL,
        PRIMARY KEY (queue, key)
      )`);
    await q.query('CREATE INDEX job_schedules_due ON job_schedules (next_run)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE job_schedules');
  }
}
