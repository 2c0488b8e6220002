import type { Logger } from './logger.js';

/** Background work: the gateway backs this with pg-boss queues in PostgreSQL. */
export interface JobContext {
  id: string;
  /** The plugin's logger, scoped to the queue (`[my-plugin.refresh] ...`). */
  log?: Logger;
}

export interface JobSpec<T = unknown> {
  /** Queue name, prefixed by the plugin id (for example `auth.purge-tokens`). */
  queue: string;
  handler: (data: T, ctx: JobContext) => Promise<void>;
  /** Cron expression for recurring work. */
  schedule?: string;
  /** Jobs one process runs at once (default 1: one after the other); the runner splits them over a few fetch loops. */
  concurrency?: number;
  /** How often an idle worker looks for jobs (seconds, at least 0.5; pg-boss default 2). */
  pollingIntervalSeconds?: number;
  /**
   * Called once a job of this queue has failed for good: its last attempt threw, or its worker
   * process died (kill -9, out of memory) more times than the job's retries. A queue whose job stands
   * for a record the user sees (a status `running`) marks it failed here; nothing else would. Runs as
   * a job of its own (`<queue>.final-failure`, on the workers of this queue), at least once: make it
   * idempotent (change the record only while it is still pending or running). A hook that throws is
   * retried like the job was.
   */
  onFinalFailure?: (data: T, failure: JobFailure) => Promise<void>;
}

/** Why a job failed for good, as `JobSpec.onFinalFailure` is told. */
export interface JobFailure {
  queue: string;
  /** The failed job's id; null when pg-boss failed it by itself (its 15-minute expiry). */
  jobId: string | null;
  /** The last attempt's cause (an error message, or the worker process that stopped): for the operators' log, not for users. */
  reason: string;
  /**
   * The last attempt's error code, when its error had one: `blob_store_unavailable` when the file
   * store stayed unreachable through every retry (a 503 of its own for the user, not a server bug).
   */
  code?: string;
  log?: Logger;
}

export interface JobQueue {
  /**
   * Queues one job; returns its id, or null when `singletonKey` is given and a job of this queue
   * with that key is already waiting or running (the send is dropped, not queued twice).
   */
  send<T extends object>(queue: string, data: T, options?: JobSendOptions): Promise<string | null>;
  /** Many jobs of one queue in one statement (a fan-out: one round trip, not one per job). */
  sendMany<T extends object>(queue: string, items: T[]): Promise<void>;
  /**
   * Runs `queue` (a queue of this plugin with a JobSpec handler) with `data` on a cron schedule
   * (`'0 3 * * *'`; UTC unless `tz`) until `unschedule`. One schedule per queue and `key` (per feed,
   * per account...): scheduling again replaces it. Stored in PostgreSQL, so it survives restarts;
   * each due run is sent once whatever the number of worker processes. Resolution: one minute.
   * A bad expression or time zone throws 400 `invalid_schedule`. For a fixed schedule, declare
   * `JobSpec.schedule` instead.
   */
  schedule<T extends object>(queue: string, cron: string, data?: T, options?: JobScheduleOptions): Promise<void>;
  /** Removes a schedule made with `schedule` (jobs already sent still run); false when there was none. */
  unschedule(queue: string, key?: string): Promise<boolean>;
  /**
   * Waits until no job is waiting or running in these queues (all when omitted), counting those
   * that fall due before `timeoutMs` (default 60 000), then throws. Tests: `server.drainJobs()`.
   */
  drain?(options?: { queues?: string[]; timeoutMs?: number }): Promise<void>;
}

export interface JobScheduleOptions {
  /** Several schedules of one queue are told apart by key (default ''). */
  key?: string;
  /** IANA time zone the cron fields are read in (default 'UTC'). */
  tz?: string;
  /** Count the first run from this date (default now). */
  from?: Date;
}

export interface JobSendOptions {
  singletonKey?: string;
  startAfterSeconds?: number;
  /** Retries after a failed run (with exponential backoff from retryDelaySeconds). */
  retryLimit?: number;
  retryDelaySeconds?: number;
}
