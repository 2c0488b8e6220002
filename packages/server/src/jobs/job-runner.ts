import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import PgBoss from 'pg-boss';
import cronParser from 'cron-parser';
import type { Logger as PinoLogger } from 'pino';
import { badRequest, isBlobStoreOutage, loggerFactory, type JobFailure, type JobQueue, type JobScheduleOptions, type JobSendOptions, type JobSpec, type Logger, type LoggerFactory } from '@filigrane/core';
import type { Metrics } from '../metrics/metrics.js';

/** Jobs per pg-boss worker loop, and loops per queue, when a queue asks for concurrency. */
const JOBS_PER_LOOP = 8;
const MAX_LOOPS = 4;

/** pg-boss's dead-letter queue of a queue with a final-failure hook: its jobs that failed for good land there. */
export function finalFailureQueue(queue: string): string {
  return `${queue}.final-failure`;
}

/**
 * A failed attempt as pg-boss stores it (the job's `output`, copied to the dead-letter job): the
 * cause's message, stack and the job's id, which the dead-letter copy would otherwise not know.
 */
class JobAttemptError extends Error {
  /** The cause's own code (`blob_store_unavailable`), when it has one: the final-failure hook reads it. */
  readonly code?: string;
  constructor(
    readonly jobId: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = cause instanceof Error ? cause.name : 'Error';
    if (cause instanceof Error && cause.stack) this.stack = cause.stack;
    const code = errorCode(cause);
    if (code) this.code = code;
  }
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * pg-boss behind the core JobQueue: jobs live in PostgreSQL, so any number of worker processes
 * on any number of machines share them. The boss starts lazily for processes that only send.
 */
export class JobRunner implements JobQueue {
  private boss: PgBoss | null = null;
  private starting: Promise<PgBoss> | null = null;
  private stopped = false;
  /** One creation per queue name: concurrent first sends would race pg-boss's CREATE (a 500 seen on PostgreSQL). */
  private readonly created = new Map<string, Promise<void>>();
  /** Queues with a final-failure hook (`declare`): their jobs are sent with a dead-letter queue. */
  private readonly deadLetters = new Map<string, string>();
  /** This process in `job_leases` (host, pid and a random part: a pid is reused after a restart). */
  private readonly processName = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private leaseTimer: NodeJS.Timeout | null = null;
  /**
   * JOB_LEASE_SECONDS: a running job's process renews its lease every quarter of this; a job whose
   * lease is older (its process was killed or lost) is failed so that pg-boss retries it at once,
   * instead of leaving it active until pg-boss's own expiry (15 minutes).
   */
  leaseSeconds = 60;
  /**
   * JOB_STORE_RETRIES and JOB_STORE_RETRY_SECONDS: an attempt that failed because the file store was
   * unreachable is retried this many times at least, the first after this delay, doubling (with
   * jitter) each time, instead of pg-boss's default of a few retries at once, which an outage of a
   * few seconds would use up. With the defaults the job waits for the store 5 to 10 minutes.
   */
  storeRetries = 6;
  storeRetrySeconds = 5;

  constructor(
    private readonly connectionString: string,
    private readonly log: (msg: string) => void,
    private readonly loggers: LoggerFactory = loggerFactory(log),
    /** Each job's start, end, duration and failure; absent: none (tests). */
    private readonly logger?: PinoLogger,
    private readonly metrics?: Metrics,
    /** The platform's clock: a schedule's first run counts from it (a test's ManualClock included). */
    private readonly now: () => Date = () => new Date(),
  ) {}

  private start(): Promise<PgBoss> {
    // A send after stop() (a listener finishing while the process closes) must not start a queue
    // nobody will stop again: it would keep the process alive.
    if (this.stopped && !this.starting) return Promise.reject(new Error('the job queue is stopped'));
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
    let creating = this.created.get(name);
    if (!creating) {
      const deadLetter = this.deadLetters.get(name);
      // The dead-letter queue first: a job names it (a foreign key in pg-boss's tables).
      creating = deadLetter ? boss.createQueue(deadLetter).then(() => boss.createQueue(name)) : boss.createQueue(name);
      this.created.set(name, creating);
      creating.catch(() => this.created.delete(name));
    }
    await creating;
    return boss;
  }

  /**
   * The queues whose JobSpec has `onFinalFailure`: called in every process (API-only ones send
   * jobs too), before any send. Their jobs carry a dead-letter queue, so that pg-boss itself, in the
   * statement that fails a job for good (a last attempt that threw, a lease taken back once too
   * often, its own expiry), queues the hook's job: no window where a crash forgets it.
   */
  declare(specs: JobSpec<never>[]): void {
    for (const spec of specs) if (spec.onFinalFailure) this.deadLetters.set(spec.queue, finalFailureQueue(spec.queue));
  }

  private deadLetter(queue: string): { deadLetter?: string } {
    const deadLetter = this.deadLetters.get(queue);
    return deadLetter ? { deadLetter } : {};
  }

  async send<T extends object>(queue: string, data: T, options: JobSendOptions = {}): Promise<string | null> {
    const boss = await this.queue(queue);
    const retry = options.retryLimit === undefined ? {} : { retryLimit: options.retryLimit, retryDelay: options.retryDelaySeconds ?? 1, retryBackoff: true };
    const sendOptions = { singletonKey: options.singletonKey, startAfter: options.startAfterSeconds, ...retry, ...this.deadLetter(queue) };
    if (options.singletonKey === undefined) return boss.send(queue, data, sendOptions);
    // pg-boss's standard queues ignore a bare singletonKey: check and insert under one advisory
    // lock per (queue, key), in one transaction, so two senders never both queue it.
    return this.transaction(async (db) => {
      await db.executeSql('SELECT pg_advisory_xact_lock(hashtext($1))', [`${queue}:${options.singletonKey}`]);
      const { rows } = await db.executeSql(
        "SELECT 1 FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state IN ('created', 'retry', 'active') LIMIT 1",
        [queue, options.singletonKey],
      );
      return rows.length > 0 ? null : boss.send(queue, data, { ...sendOptions, db });
    });
  }

  private async transaction<T>(work: (db: { executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> }) => Promise<T>): Promise<T> {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: this.connectionString });
    await client.connect();
    try {
      await client.query('BEGIN');
      const result = await work({ executeSql: (text, values) => client.query(text, values) });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await client.end();
    }
  }

  async drain(options: { queues?: string[]; timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    const boss = await this.start();
    // A queue's final-failure hooks are part of its work.
    const queues = options.queues?.flatMap((q) => (this.deadLetters.has(q) ? [q, this.deadLetters.get(q)!] : [q]));
    for (;;) {
      // Jobs that fall due before the deadline count too (a short startAfter, a retry's backoff).
      const { rows } = await boss.getDb().executeSql(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry', 'active') AND start_after <= now() + make_interval(secs => $1)${queues ? ' AND name = ANY($2)' : ''}`,
        queues ? [timeoutMs / 1000, queues] : [timeoutMs / 1000],
      );
      if ((rows[0] as { n: number }).n === 0) return;
      if (Date.now() > deadline) throw new Error(`jobs still waiting or running after ${options.timeoutMs ?? 60_000} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * A schedule made at run time: stored in job_schedules (one per queue and key; scheduling again
   * replaces it), sent by the `core.schedules` job when due, so it survives restarts and any worker
   * process sends each run once. A bad cron expression or time zone is refused here.
   */
  async schedule<T extends object>(queue: string, cron: string, data?: T, options: JobScheduleOptions = {}): Promise<void> {
    const tz = options.tz ?? 'UTC';
    const next = nextRun(cron, tz, options.from ?? this.now());
    const boss = await this.queue(queue);
    await boss.getDb().executeSql(
      `INSERT INTO job_schedules (queue, key, cron, tz, data, next_run) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (queue, key) DO UPDATE SET cron = EXCLUDED.cron, tz = EXCLUDED.tz, data = EXCLUDED.data, next_run = EXCLUDED.next_run`,
      [queue, options.key ?? '', cron, tz, JSON.stringify(data ?? {}), next],
    );
  }

  async unschedule(queue: string, key = ''): Promise<boolean> {
    const boss = await this.start();
    const { rows } = await boss.getDb().executeSql('DELETE FROM job_schedules WHERE queue = $1 AND key = $2 RETURNING queue', [queue, key]);
    return rows.length > 0;
  }

  /**
   * Sends one job for every schedule due at `now` and moves it to its next run, in one transaction
   * (rows locked, others skipped: two workers never send the same run). A run missed while no worker
   * ran is sent once, not once per missed slot. Returns how many were sent.
   */
  async sendDueSchedules(now: Date): Promise<number> {
    const boss = await this.start();
    return this.transaction(async (db) => {
      const { rows } = (await db.executeSql(
        'SELECT queue, key, cron, tz, data FROM job_schedules WHERE next_run <= $1 ORDER BY next_run LIMIT 500 FOR UPDATE SKIP LOCKED',
        [now],
      )) as { rows: { queue: string; key: string; cron: string; tz: string; data: object }[] };
      for (const s of rows) {
        await this.queue(s.queue);
        await boss.send(s.queue, s.data, { db, ...this.deadLetter(s.queue) });
        await db.executeSql('UPDATE job_schedules SET next_run = $3 WHERE queue = $1 AND key = $2', [s.queue, s.key, nextRun(s.cron, s.tz, now)]);
      }
      return rows.length;
    });
  }

  async sendMany<T extends object>(queue: string, items: T[]): Promise<void> {
    if (items.length === 0) return;
    const boss = await this.queue(queue);
    await boss.insert(items.map((data) => ({ name: queue, data, ...this.deadLetter(queue) })));
  }

  /** Registers handlers and schedules: called by processes that run workers. */
  async work(specs: JobSpec<never>[], queues?: string[]): Promise<void> {
    this.leaseTimer ??= setInterval(() => void this.renewLeases(), (this.leaseSeconds * 1000) / 4);
    this.leaseTimer.unref();
    for (const spec of selectQueues(specs, queues)) {
      const boss = await this.queue(spec.queue);
      // A pg-boss worker fetches a batch and waits for its slowest job before the next fetch; a high
      // concurrency is split over a few workers so one slow job (or a fetch) never idles every slot.
      const concurrency = spec.concurrency ?? 1;
      const loops = Math.min(MAX_LOOPS, Math.ceil(concurrency / JOBS_PER_LOOP));
      const batchSize = Math.ceil(concurrency / loops);
      for (let i = 0; i < loops; i++) await this.loop(boss, spec, batchSize);
      if (spec.onFinalFailure) await this.finalFailureLoop(boss, spec, spec.onFinalFailure);
      if (spec.schedule) await boss.schedule(spec.queue, spec.schedule);
      else await boss.unschedule(spec.queue).catch(() => undefined);
    }
  }

  private async loop(boss: PgBoss, spec: JobSpec<never>, batchSize: number): Promise<void> {
    let workerId = '';
    const log = this.loggers.for(spec.queue);
    workerId = await boss.work(spec.queue, { batchSize, pollingIntervalSeconds: spec.pollingIntervalSeconds ?? 2 }, async (jobs) => {
      if (jobs.length === 1) await this.runOne(spec, jobs[0]!, log);
      else await this.runBatch(boss, spec, jobs, log);
      // pg-boss waits a polling interval after every fetch; a full batch means more may be
      // waiting, so fetch again at once (throughput is then not capped at batchSize/interval).
      if (spec.concurrency !== undefined && jobs.length === batchSize && workerId) boss.notifyWorker(workerId);
    });
  }

  /**
   * A batch's jobs, each ending on its own. pg-boss fails a whole batch when its callback throws:
   * the jobs that had succeeded would run again, and those still running would be retried beside
   * themselves. So each success is completed at once, and each failure failed once all have ended,
   * due again a second later at the earliest: pg-boss then completes what is still active of the
   * batch, which must not be a failed job another loop has taken again meanwhile.
   */
  private async runBatch(boss: PgBoss, spec: JobSpec<never>, jobs: { id: string; data: unknown }[], log: Logger): Promise<void> {
    const failed: { id: string; err: unknown }[] = [];
    await Promise.all(
      jobs.map((job) => this.runOne(spec, job, log).then(
        // Not completed (the database gone a moment): still active, pg-boss completes it below.
        () => boss.complete(spec.queue, job.id).catch(() => undefined),
        (err: unknown) => void failed.push({ id: job.id, err }),
      )),
    );
    if (!failed.length) return;
    await boss.getDb().executeSql('UPDATE pgboss.job SET retry_delay = GREATEST(retry_delay, 1) WHERE name = $1 AND id = ANY($2::uuid[])', [spec.queue, failed.map((f) => f.id)]);
    for (const f of failed) await boss.fail(spec.queue, f.id, f.err as object);
  }

  /**
   * The jobs of a queue that failed for good, as pg-boss put them in its dead-letter queue (the
   * job's data, its last output): logged at error once, then handed to the queue's hook. A hook that
   * throws is retried (the dead-letter job has the original's retries).
   */
  private async finalFailureLoop(boss: PgBoss, spec: JobSpec<never>, hook: NonNullable<JobSpec<never>['onFinalFailure']>): Promise<void> {
    const queue = finalFailureQueue(spec.queue);
    const log = this.loggers.for(spec.queue);
    await boss.work(queue, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: spec.pollingIntervalSeconds ?? 2 }, async ([job]) => {
      if (!job) return;
      const failure = failureOf(spec.queue, job.output);
      if (job.retryCount === 0) {
        this.metrics?.jobs.inc({ queue: spec.queue, outcome: 'failed_for_good' });
        this.logger?.error(
          { queue: spec.queue, job: failure.jobId ?? undefined, deadLetterJob: job.id, cause: failure.reason, retries: job.retryLimit },
          `job failed for good (its retries used up): ${failure.reason}`,
        );
      }
      try {
        await hook(job.data as never, { ...failure, log });
        // Kept as the dead-letter job's output (pg-boss replaces it with what the handler returns): which job, and why.
        return { jobId: failure.jobId, reason: failure.reason };
      } catch (err) {
        this.logger?.error({ queue: spec.queue, job: failure.jobId ?? undefined, deadLetterJob: job.id, err }, 'the final-failure hook failed; it is retried');
        throw err;
      }
    });
  }

  /**
   * Renews the leases of this process's running jobs, then hands back to pg-boss the jobs of
   * processes that stopped renewing theirs: failed with the reason, so they are retried (the
   * handlers are replayable: a watermarking, search or press issue runs again from its start).
   */
  private async renewLeases(): Promise<void> {
    try {
      const boss = await this.start();
      const db = boss.getDb();
      await db.executeSql('UPDATE job_leases SET heartbeat = now() WHERE process = $1', [this.processName]);
      const { rows } = (await db.executeSql(
        `DELETE FROM job_leases WHERE job_id IN (
           SELECT job_id FROM job_leases WHERE heartbeat < now() - make_interval(secs => $1) FOR UPDATE SKIP LOCKED LIMIT 100)
         RETURNING job_id, queue, process, heartbeat`,
        [this.leaseSeconds],
      )) as { rows: { job_id: string; queue: string; process: string; heartbeat: Date }[] };
      for (const lost of rows) {
        const reason = `its worker process ${lost.process} stopped (no heartbeat since ${new Date(lost.heartbeat).toISOString()})`;
        await boss.fail(lost.queue, lost.job_id, { message: reason, jobId: lost.job_id });
        this.logger?.warn({ queue: lost.queue, job: lost.job_id, process: lost.process }, `job taken back: ${reason}; pg-boss retries it`);
      }
    } catch (err) {
      if (!this.stopped) this.logger?.error({ err }, 'job leases could not be renewed');
    }
  }

  private async lease(jobId: string, queue: string): Promise<void> {
    const boss = await this.start();
    await boss.getDb().executeSql(
      'INSERT INTO job_leases (job_id, queue, process) VALUES ($1, $2, $3) ON CONFLICT (job_id) DO UPDATE SET process = EXCLUDED.process, heartbeat = now()',
      [jobId, queue, this.processName],
    );
  }

  private async release(jobId: string): Promise<void> {
    const boss = await this.start();
    await boss.getDb().executeSql('DELETE FROM job_leases WHERE job_id = $1 AND process = $2', [jobId, this.processName]);
  }

  /**
   * One job, logged: start and end (with its duration) at info, or debug for scheduled upkeep that
   * runs every minute; a failure at error with its cause, then rethrown so pg-boss retries or fails it.
   */
  private async runOne(spec: JobSpec<never>, job: { id: string; data: unknown }, log: Logger): Promise<void> {
    const fields = { queue: spec.queue, job: job.id };
    const routine = spec.schedule !== undefined;
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    if (routine) this.logger?.debug(fields, 'job started');
    else this.logger?.info(fields, 'job started');
    try {
      await this.lease(job.id, spec.queue);
      await spec.handler(job.data as never, { id: job.id, log });
    } catch (err) {
      await this.release(job.id).catch(() => undefined);
      const duration = seconds();
      this.metrics?.jobs.inc({ queue: spec.queue, outcome: 'failed' });
      this.metrics?.jobSeconds.observe({ queue: spec.queue, outcome: 'failed' }, duration);
      const outage = isBlobStoreOutage(err) && (await this.waitForStore(spec.queue, job.id).catch(() => false));
      if (outage) this.logger?.warn({ ...fields, ms: Math.round(duration * 1000), err }, `job failed: the file store is unreachable; retried with a delay from ${this.storeRetrySeconds} s, doubling`);
      else this.logger?.error({ ...fields, ms: Math.round(duration * 1000), err }, 'job failed');
      // pg-boss stores what is thrown as the job's output; the job's id rides along for the dead-letter copy.
      throw new JobAttemptError(job.id, err);
    }
    await this.release(job.id).catch(() => undefined);
    const duration = seconds();
    this.metrics?.jobs.inc({ queue: spec.queue, outcome: 'completed' });
    this.metrics?.jobSeconds.observe({ queue: spec.queue, outcome: 'completed' }, duration);
    if (routine) this.logger?.debug({ ...fields, ms: Math.round(duration * 1000) }, 'job completed');
    else this.logger?.info({ ...fields, ms: Math.round(duration * 1000) }, 'job completed');
  }

  /**
   * Gives the job (about to be failed by pg-boss) the store outage's retries: at least
   * `storeRetries` of them, delayed and doubling (a queue's own longer delay is kept). pg-boss
   * computes the next attempt's time from these columns in the statement that fails it. True when
   * the job has a retry left.
   */
  private async waitForStore(queue: string, jobId: string): Promise<boolean> {
    const boss = await this.start();
    const { rows } = await boss.getDb().executeSql(
      `UPDATE pgboss.job SET retry_limit = GREATEST(retry_limit, $3), retry_delay = GREATEST(retry_delay, $4), retry_backoff = true
       WHERE name = $1 AND id = $2 RETURNING retry_count < retry_limit AS more`,
      [queue, jobId, this.storeRetries, this.storeRetrySeconds],
    );
    return (rows[0] as { more?: boolean } | undefined)?.more === true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.leaseTimer = null;
    if (this.starting) await (await this.starting).stop({ graceful: true, timeout: 10_000 });
    this.boss = null;
    this.starting = null;
  }
}

/** A dead-letter job's output (the failed job's last one) read as a JobFailure. */
export function failureOf(queue: string, output: unknown): Omit<JobFailure, 'log'> {
  const o = (output && typeof output === 'object' ? output : {}) as { message?: unknown; value?: unknown; jobId?: unknown; code?: unknown };
  const reason = typeof o.message === 'string' ? o.message : typeof o.value === 'string' ? o.value : 'no cause recorded';
  return { queue, jobId: typeof o.jobId === 'string' ? o.jobId : null, reason, ...(typeof o.code === 'string' ? { code: o.code } : {}) };
}

/** The first time after `from` that a cron expression (5 fields, or 6 with seconds) names, in a time zone. */
export function nextRun(cron: string, tz: string, from: Date): Date {
  try {
    return cronParser.parseExpression(cron, { currentDate: from, tz, utc: tz === 'UTC' }).next().toDate();
  } catch (err) {
    throw badRequest('invalid_schedule', `Not a cron schedule in time zone "${tz}": "${cron}" (${(err as Error).message}).`);
  }
}

/** `*` in a pattern matches any run of characters (`crawler.*`, `*.purge*`); an exact name matches itself. */
export function queuePattern(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** The specs `--queues` names (all when unset) and the platform's `core.*` queues; a pattern that names no queue is an operator's typo: refused. */
export function selectQueues<T extends { queue: string }>(specs: T[], patterns?: string[]): T[] {
  if (!patterns) return specs;
  const compiled = patterns.map((p) => ({ p, re: queuePattern(p) }));
  const unknown = compiled.filter(({ re }) => !specs.some((s) => re.test(s.queue))).map(({ p }) => p);
  if (unknown.length) throw new Error(`--queues: ${unknown.join(', ')} matches no queue; the queues are: ${specs.map((s) => s.queue).sort().join(', ')}`);
  // The platform's own queues (`core.events` delivers the outbox to webhooks and mails, `core.schedules`
  // sends run-time schedules) are no feature to route: a deployment whose workers all named their
  // queues would otherwise deliver no event at all, silently. Every worker runs them.
  return specs.filter((s) => PLATFORM_QUEUE.test(s.queue) || compiled.some(({ re }) => re.test(s.queue)));
}

const PLATFORM_QUEUE = /^core\./;
