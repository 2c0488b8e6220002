/** Background work: the gateway backs this with pg-boss queues in PostgreSQL. */
export interface JobContext {
  id: string;
}

export interface JobSpec<T = unknown> {
  /** Queue name, prefixed by the plugin id (for example `auth.purge-tokens`). */
  queue: string;
  handler: (data: T, ctx: JobContext) => Promise<void>;
  /** Cron expression for recurring work. */
  schedule?: string;
}

export interface JobQueue {
  send<T extends object>(queue: string, data: T, options?: JobSendOptions): Promise<string | null>;
}

export interface JobSendOptions {
  singletonKey?: string;
  startAfterSeconds?: number;
  /** Retries after a failed run (with exponential backoff from retryDelaySeconds). */
  retryLimit?: number;
  retryDelaySeconds?: number;
}
