import { definePlugin, TOKENS, type Clock } from '@filigrane/core';
import { JobLeases1796100000000 } from './job-leases.migration.js';
import { JobSchedules1764400000000 } from './job-schedules.migration.js';
import type { JobRunner } from './job-runner.js';

export const SCHEDULES_QUEUE = 'core.schedules';

/**
 * Built into the gateway: the table behind `JobQueue.schedule()` and the job that sends what fell due.
 * It runs every minute (cron's resolution) in whichever worker process takes it.
 */
export const jobSchedulesPlugin = definePlugin({
  id: 'job-schedules',
  migrations: [JobSchedules1764400000000, JobLeases1796100000000],
  jobs: (c) => [
    {
      queue: SCHEDULES_QUEUE,
      schedule: '* * * * *',
      handler: async () => void (await c.get<JobRunner>(TOKENS.JobQueue).sendDueSchedules(c.get<Clock>(TOKENS.Clock).now())),
    },
  ],
});
