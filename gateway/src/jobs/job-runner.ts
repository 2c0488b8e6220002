import PgBoss from 'pg-boss';
import type { JobQueue, JobSendOptions, JobSpec } from '@filigrane/core';

/**
 * pg-boss behind the core JobQueue: jobs live in PostgreSQL, so any number of worker processes
 * on any number of machines share them. The boss starts lazily for processes that only send.
 */
export class JobRunner implements JobQueue {
  private boss: PgBoss | null = null;
  private starting: Promise<PgBoss> | null = null;
  private readonly created = new Set<string>();

  constructor(private readonly connectionString: string, private readonly log: (msg: string) => void) {}

  private start(): Promise<PgBoss> {
    this.starting ??= (async () => {
      const boss = new PgBoss({ connectionString: this.connectionString, schema: 'pgboss', max: 3 });
      boss.on('error', (err: Error) => this.log(`job queue error: ${err.message}`));
      await boss.start();
      this.boss = boss;
      return boss;
    })();
    return this.starting;
  }

  private async queue(name: string): Promise<PgBoss> {
    const boss = await this.start();
    if (!this.created.has(name)) {
      await boss.createQueue(name);
      this.created.add(name);
    }
    return boss;
  }

  async send<T extends object>(queue: string, data: T, options: JobSendOptions = {}): Promise<string | null> {
    const boss = await this.queue(queue);
    const retry = options.retryLimit === undefined ? {} : { retryLimit: options.retryLimit, retryDelay: options.retryDelaySeconds ?? 1, retryBackoff: true };
    return boss.send(queue, data, { singletonKey: options.singletonKey, startAfter: options.startAfterSeconds, ...retry });
  }

  /** Registers handlers and schedules: called by processes that run workers. */
  async work(specs: JobSpec<never>[]): Promise<void> {
    for (const spec of specs) {
      const boss = await this.queue(spec.queue);
      await boss.work(spec.queue, async (jobs) => {
        for (const job of jobs) await spec.handler(job.data as never, { id: job.id });
      });
      if (spec.schedule) await boss.schedule(spec.queue, spec.schedule);
      else await boss.unschedule(spec.queue).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    if (this.starting) await (await this.starting).stop({ graceful: true, timeout: 10_000 });
    this.boss = null;
    this.starting = null;
  }
}
