import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject, injectable } from 'inversify';
import { In, LessThanOrEqual, MoreThan, type DataSource } from 'typeorm';
import { ApiError, BlobMissingError, CORE_SETTINGS, isBlobStoreOutage, requireBlob, notFound, returnedRows, TOKENS, type BlobStore, type Clock, type CoreSettings, type EventPublisher, type JobQueue, type LoggerFactory, codecApiError } from '@filigrane/core';
import { WATERMARKING_SETTINGS, type WatermarkingSettings } from './watermarking.settings.js';
import { AccountService, AccountUsageService } from '@filigrane/plugin-account';
import { probeImage } from '@filigrane/vision';
import { LMK_MEDIA_TYPE } from '@filigrane/watermark';
import { EmbedRunner } from './embed-runner.js';
import { WatermarkingJob, type WatermarkingError } from './watermarking.entity.js';

export const WATERMARKING_QUEUE = 'watermarking.run';
export const PURGE_QUEUE = 'watermarking.purge-expired';

export const ASSETS = ['original', 'watermarked', 'registration'] as const;
export type AssetName = (typeof ASSETS)[number];

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;
/** How often a synchronous request re-reads its job row while it waits. */
const POLL_MS = 200;
const PURGE_BATCH = 500;

const LOCAL_ASSET = /^\/api\/v4\/watermarking\/([0-9a-f-]{36})\/(original|watermarked|registration)\/?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const jobPrefix = (id: string) => `watermarking/${id}`;
export const assetKey = (id: string, asset: AssetName) => `${jobPrefix(id)}/${asset}`;
export const jobUrl = (baseUrl: string, id: string) => `${baseUrl}/api/v4/watermarking/${id}/`;
export const assetUrl = (baseUrl: string, id: string, asset: AssetName) => `${baseUrl}/api/v4/watermarking/${id}/${asset}`;

/** The spec's Watermarking result. */
export interface WatermarkingResult {
  original: string;
  watermarked: string;
  registration: string;
  expiry: string;
}

/** The pollable status object (`GET /api/v4/watermarking/<id>/`). */
export interface WatermarkingStatusView {
  id: string;
  url: string;
  status: WatermarkingJob['status'];
  created: string;
  finished: string | null;
  expiry: string;
  result: WatermarkingResult | null;
  error: WatermarkingError | null;
}

const SERVER_ERROR: WatermarkingError = { status_code: 500, code: 'server_error', details: 'The watermarking failed; retry later.' };
const ABANDONED: WatermarkingError = {
  status_code: 500,
  code: 'server_error',
  details: 'The watermarking was tried several times and stopped each time on the service\'s side (logged for its operators); submit the image again later.',
};
const STORE_DOWN: WatermarkingError = {
  status_code: 503,
  code: 'blob_store_unavailable',
  details: 'The file store could not be reached for several minutes (the operators have been told); submit the image again later.',
};

/** The error a failed job ended with, as an ApiError. */
export function failure(job: WatermarkingJob): ApiError {
  const e = job.error ?? SERVER_ERROR;
  return new ApiError(e.status_code, e.code, e.details);
}

export interface Asset {
  data: Buffer;
  contentType: string;
  filename: string;
}

/**
 * Watermarking as pg-boss jobs: the request stores the original and a `pending` row, any worker
 * embeds a fresh key and writes the watermarked image and the sealed registration file, and the
 * row is the state everyone (sync waiters, pollers, the purge) reads.
 */
@injectable()
export class WatermarkingService {
  private readonly embedder = new EmbedRunner();

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
    @inject(WATERMARKING_SETTINGS.token) private readonly settings: WatermarkingSettings,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
    @inject(AccountService) private readonly accounts: AccountService,
    @inject(AccountUsageService) private readonly usage: AccountUsageService,
    @inject(TOKENS.Loggers) private readonly loggers: LoggerFactory,
  ) {}

  /** Asset lifetime: `WATERMARKING_TTL_HOURS` (fractions allowed), 24 h by default. */
  ttlMs(): number {
    return this.settings.ttlHours * 3_600_000;
  }

  private maxPixels(): number {
    return this.core.maxImagePixels;
  }

  /**
   * Checks the image's header now, so an unsupported, corrupt or oversized image is refused by the
   * request itself (even asynchronous ones), stores the original and queues the job.
   */
  async submit(accountId: number, bytes: Buffer): Promise<WatermarkingJob> {
    let format: string;
    try {
      format = (await probeImage(bytes, { maxPixels: this.maxPixels() })).format;
    } catch (err) {
      throw codecApiError(err);
    }
    const now = this.clock.now();
    const job = this.db.manager.create(WatermarkingJob, {
      id: randomUUID(),
      accountId,
      status: 'pending',
      format,
      error: null,
      created: now,
      finished: null,
      expires: new Date(now.getTime() + this.ttlMs()),
    });
    // Counted in disk_usage while the assets live: the original and, as reserved now, a watermarked
    // copy of the same size (the .lmk is small). Given back when the purge deletes them.
    job.bytes = 2 * bytes.length;
    // The original is in the shared store before the row exists: a worker that sees the row finds it.
    await this.blobs.put(assetKey(job.id, 'original'), bytes);
    let counted = false;
    try {
      await this.db.transaction(async (m) => {
        // The account row lock (taken by usage.apply) also serialises this count per account.
        await this.usage.apply(m, accountId, { bytes: job.bytes });
        const [active]: { n: number }[] = await m.query(
          `SELECT count(*)::int AS n FROM watermarking_jobs WHERE account_id = $1 AND status IN ('pending', 'running') AND expires > $2`,
          [accountId, now],
        );
        if (active!.n >= this.settings.maxActive) {
          throw new ApiError(429, 'too_many_watermarkings', `At most ${this.settings.maxActive} watermarkings may be pending or running at once; retry when one has finished.`, undefined, { 'retry-after': '10' });
        }
        // jsonb columns defeat TypeORM's deep-partial typing; the row is the entity just created.
        await m.insert(WatermarkingJob, job as never);
      });
      counted = true;
      await this.jobs.send(WATERMARKING_QUEUE, { id: job.id });
    } catch (err) {
      await this.db
        .transaction(async (m) => {
          const removed = await m.delete(WatermarkingJob, { id: job.id });
          if (counted && removed.affected) await this.usage.apply(m, accountId, { bytes: -job.bytes });
        })
        .catch(() => undefined);
      await this.blobs.deletePrefix(jobPrefix(job.id)).catch(() => undefined);
      throw err;
    }
    return job;
  }

  /**
   * Submits, then (sync) waits up to `timeoutSeconds`. Returns the job as it then is: complete,
   * or still pending/running when the wait timed out or was not asked for. A job that failed
   * while we waited is thrown as the error it ended with, as if the request had done the work.
   */
  async watermark(accountId: number, bytes: Buffer, options: { sync: boolean; timeoutSeconds: number }): Promise<WatermarkingJob> {
    const job = await this.submit(accountId, bytes);
    if (!options.sync) return job;
    const done = await this.waitFor(job.id, options.timeoutSeconds);
    if (done.status === 'failed') throw failure(done);
    return done;
  }

  /**
   * Waits for the job to finish, re-reading its row. Wall-clock time on purpose: `timeout` is how
   * long the client's connection is held, which a test clock must not shorten or stretch.
   */
  async waitFor(id: string, timeoutSeconds: number): Promise<WatermarkingJob> {
    const deadline = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const job = await this.db.manager.findOne(WatermarkingJob, { where: { id } });
      // Only a lifetime shorter than the wait lets the purge take the row from under us.
      if (!job) throw new ApiError(404, 'expired', 'The watermarking expired before it finished.');
      if (job.status === 'complete' || job.status === 'failed') return job;
      const left = deadline - Date.now();
      if (left <= 0) return job;
      await sleep(Math.min(POLL_MS, left));
    }
  }

  /**
   * The job handler. Safe to run again (pg-boss re-delivers a job whose worker died): a finished
   * job is left alone, an interrupted one is redone from the stored original with a new key.
   */
  async run(id: string): Promise<void> {
    const job = await this.db.manager.findOne(WatermarkingJob, { where: { id } });
    if (!job || job.status === 'complete' || job.status === 'failed' || this.expired(job)) return;
    await this.db.manager.update(WatermarkingJob, { id }, { status: 'running' });
    let error: WatermarkingError;
    try {
      const original = await requireBlob(this.blobs, assetKey(id, 'original'));
      // Embedding and sealing run in a worker thread (embed.worker.ts): the event loop keeps serving.
      const result = await this.embedder.run({ original, publicKeyDer: await this.accounts.publicKey(job.accountId), maxPixels: this.maxPixels() });
      const lmk = result.lmk;
      await this.blobs.put(assetKey(id, 'watermarked'), result.image);
      await this.blobs.put(assetKey(id, 'registration'), lmk);
      const done = await this.finish(job, { status: 'complete', finished: this.clock.now() }, null);
      // Purged while we worked: do not leave orphan blobs behind.
      if (!done) await this.blobs.deletePrefix(jobPrefix(id));
      return;
    } catch (err) {
      // The store out of reach passes: the job is retried later, the watermarking stays running.
      if (isBlobStoreOutage(err)) throw err;
      const mapped = codecApiError(err);
      // A server fault is logged with its cause (a missing file's key); the client sees its code.
      if (!(mapped instanceof ApiError)) this.loggers.for('watermarking').error(`watermarking ${id} failed`, err);
      error = mapped instanceof ApiError
        ? { status_code: mapped.statusCode, code: mapped.code, details: mapped.details }
        : err instanceof BlobMissingError
          ? { status_code: 500, code: err.code, details: 'A stored file of this watermarking is missing; the operators have been told.' }
          : SERVER_ERROR;
    }
    // Failures are final (an image that cannot be watermarked will not become one on retry); the
    // client sees the same error body a synchronous request would have had.
    await this.finish(job, { status: 'failed', error: error as never, finished: this.clock.now() }, error);
  }

  /**
   * A job whose runs all stopped without an outcome (its worker killed or crashed each time, or a
   * fault outside the run's own handling): failed as a server fault, its event sent, unless it ended
   * meanwhile. Called by the job runner once the retries are used up.
   */
  async abandon(id: string, storeDown = false): Promise<void> {
    const job = await this.db.manager.findOne(WatermarkingJob, { where: { id } });
    if (!job || (job.status !== 'pending' && job.status !== 'running')) return;
    const error = storeDown ? STORE_DOWN : ABANDONED;
    await this.finish(job, { status: 'failed', error: error as never, finished: this.clock.now() }, error, ['pending', 'running']);
  }

  /** The running job's outcome and its `watermarking.completed` event, in one transaction (the outbox); false when it was purged meanwhile. */
  private async finish(job: WatermarkingJob, outcome: Partial<WatermarkingJob>, error: WatermarkingError | null, from: string[] = ['running']): Promise<boolean> {
    const done = await this.db.transaction(async (m) => {
      const updated = await m.update(WatermarkingJob, { id: job.id, status: In(from) }, outcome as never);
      if (!updated.affected) return false;
      await this.events.enqueue({ type: 'watermarking.completed', accountId: job.accountId, data: { id: job.id, status: outcome.status, error } }, m, { key: `watermarking:${job.id}` });
      return true;
    });
    if (done) await this.events.flush();
    return done;
  }

  expired(job: WatermarkingJob): boolean {
    return job.expires.getTime() <= this.clock.now().getTime();
  }

  /**
   * The caller's job. Another account's job is "not found", never "forbidden" (its existence is not
   * disclosed); an expired one is gone even before the purge job has run.
   */
  async find(accountId: number, id: string): Promise<WatermarkingJob> {
    const job = UUID.test(id) ? await this.db.manager.findOne(WatermarkingJob, { where: { id, accountId } }) : null;
    if (!job) throw notFound('No such watermarking.');
    if (this.expired(job)) throw new ApiError(404, 'expired', `These watermarking assets expired on ${job.expires.toISOString()}.`);
    return job;
  }

  async list(accountId: number, offset: number, limit: number): Promise<[WatermarkingJob[], number]> {
    return this.db.manager.findAndCount(WatermarkingJob, {
      where: { accountId, expires: MoreThan(this.clock.now()) },
      order: { created: 'DESC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** One asset of a complete job of the caller's. */
  async asset(accountId: number, id: string, asset: AssetName): Promise<Asset> {
    const job = await this.find(accountId, id);
    if (job.status !== 'complete' && asset !== 'original') {
      throw new ApiError(409, 'watermarking_not_complete', `The watermarking is ${job.status}; poll its status URL until it is complete.`);
    }
    const data = await requireBlob(this.blobs, assetKey(id, asset)); // a job's assets live as long as it does
    return asset === 'registration'
      ? { data, contentType: LMK_MEDIA_TYPE, filename: `${id}.lmk` }
      : { data, contentType: `image/${job.format}`, filename: `${asset}.${job.format === 'jpeg' ? 'jpg' : job.format}` };
  }

  /**
   * The `LOCAL_URLS` resolver: the bytes behind one of our asset URLs, so the media PUT (or another
   * watermarking) takes a registration URL without an HTTP round trip to ourselves, which the SSRF
   * rules would refuse anyway. null for URLs that are not ours. Ours but not available (unknown,
   * another account's, expired) fails as a remote URL answering 404 would, disclosing nothing.
   */
  async resolveLocal(url: URL, accountId: number): Promise<Buffer | null> {
    const match = LOCAL_ASSET.exec(url.pathname);
    if (!match) return null;
    try {
      return (await this.asset(accountId, match[1]!, match[2] as AssetName)).data;
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) throw new ApiError(422, 'fetch_http_error', 'Could not fetch the url: HTTP 404 (no such watermarking asset, or it expired).');
      throw err;
    }
  }

  /** The account-deleted hook: its jobs' assets, then the rows (blobs first, as the purge does). Idempotent. */
  async forgetAccount(accountId: number): Promise<void> {
    const jobs: { id: string }[] = await this.db.query('SELECT id FROM watermarking_jobs WHERE account_id = $1', [accountId]);
    for (const { id } of jobs) await this.blobs.deletePrefix(jobPrefix(id));
    await this.db.query('DELETE FROM watermarking_jobs WHERE id = ANY($1::uuid[])', [jobs.map((j) => j.id)]);
  }

  /**
   * Deletes expired jobs and their blobs; returns how many. Blobs first: if that fails, the row
   * stays and the next run retries, where the reverse order would orphan the files for ever.
   */
  async purgeExpired(): Promise<number> {
    let purged = 0;
    for (;;) {
      const batch = await this.db.manager.find(WatermarkingJob, {
        where: { expires: LessThanOrEqual(this.clock.now()) },
        select: { id: true, accountId: true, bytes: true },
        take: PURGE_BATCH,
      });
      for (const { id } of batch) await this.blobs.deletePrefix(jobPrefix(id));
      if (batch.length) {
        await this.db.transaction(async (m) => {
          const removed = returnedRows<{ account_id: number; bytes: string }>(
            await m.query('DELETE FROM watermarking_jobs WHERE id = ANY($1::uuid[]) RETURNING account_id, bytes', [batch.map((j) => j.id)]),
          );
          // The bytes these assets counted in disk_usage are given back (rows another purge took are not).
          const perAccount = new Map<number, number>();
          for (const r of removed) perAccount.set(r.account_id, (perAccount.get(r.account_id) ?? 0) + Number(r.bytes));
          for (const [accountId, bytes] of perAccount) if (bytes) await this.usage.apply(m, accountId, { bytes: -bytes });
        });
      }
      purged += batch.length;
      if (batch.length < PURGE_BATCH) return purged;
    }
  }

  result(job: WatermarkingJob, baseUrl: string): WatermarkingResult {
    return {
      original: assetUrl(baseUrl, job.id, 'original'),
      watermarked: assetUrl(baseUrl, job.id, 'watermarked'),
      registration: assetUrl(baseUrl, job.id, 'registration'),
      expiry: job.expires.toISOString(),
    };
  }

  view(job: WatermarkingJob, baseUrl: string): WatermarkingStatusView {
    return {
      id: job.id,
      url: jobUrl(baseUrl, job.id),
      status: job.status,
      created: job.created.toISOString(),
      finished: job.finished?.toISOString() ?? null,
      expiry: job.expires.toISOString(),
      result: job.status === 'complete' ? this.result(job, baseUrl) : null,
      error: job.status === 'failed' ? job.error : null,
    };
  }
}
