import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { MatchQueryService } from '@filigrane/plugin-matches';
import { BlobMissingError, conflict, isBlobStoreOutage, inject, returnedRows, injectable, notFound, TOKENS, validationError, type BlobStore, type DataSource, type EventPublisher, type JobQueue, type Logger, type LoggerFactory, type ErrorItem } from '@filigrane/plugin-api';
import { EvidenceAccountSettings, EvidencePack } from './evidence.entities.js';
import type { EvidencePackSummary, EvidenceService } from './evidence-service.js';
import { EVIDENCE_SETTINGS, type EvidenceSettings } from './evidence.settings.js';
import { PackBuilder } from './pack-builder.service.js';
import { sha256 } from './wacz-writer.js';

export const BUILD_QUEUE = 'evidence.build';
export const RECOVER_QUEUE = 'evidence.recover';
/** Matches in one pack: each one is fetched, rendered and screenshotted. */
export const MAX_MATCHES = 20;
const ATTEMPTS = 3;
/** Builds started at most: a pack whose build kills its worker every time (a page that exhausts memory) ends failed, not retried forever. */
const MAX_RUNS = ATTEMPTS + 2;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const STORE_DOWN = 'The file store could not be reached (the operators have been told); ask for the pack again later.';

/** What the pack's user reads of a failed build: a stored file's key stays in the operators' log. */
function shownError(err: unknown, message: string): string {
  if (isBlobStoreOutage(err)) return STORE_DOWN;
  if (err instanceof BlobMissingError) return 'A stored file the pack needs is missing (the operators have been told).';
  return message;
}

const summaryOf = (p: EvidencePack): EvidencePackSummary => ({
  id: p.id, sha256: p.sha256, size: p.size, matchIds: p.matchIds, createdAt: p.created, completedAt: p.completed, status: p.status, error: p.error,
});

/** The account's evidence packs: asked for (REST, GraphQL, other plugins, match.created), built by a job, stored in the blob store. */
@injectable()
export class EvidencePackService implements EvidenceService {
  private readonly log: Logger;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
    @inject(MatchQueryService) private readonly matches: MatchQueryService,
    @inject(PackBuilder) private readonly builder: PackBuilder,
    @inject(EVIDENCE_SETTINGS.token) private readonly config: EvidenceSettings,
    @inject(TOKENS.Loggers) loggers: LoggerFactory,
  ) {
    this.log = loggers.for('evidence');
  }

  /** Checks the ids (strings of digits, the account's v4 matches, 1 to MAX_MATCHES, no repeats); 400 naming each bad one. */
  async checkMatchIds(accountId: number, input: unknown): Promise<string[]> {
    const errors: ErrorItem[] = [];
    if (!Array.isArray(input) || input.length === 0) {
      throw validationError([{ field: 'matches', code: 'required', details: `matches is a list of 1 to ${MAX_MATCHES} match ids.` }]);
    }
    if (input.length > MAX_MATCHES) throw validationError([{ field: 'matches', code: 'max_length', details: `A pack covers at most ${MAX_MATCHES} matches (got ${input.length}).` }]);
    const ids: string[] = [];
    for (const raw of input) {
      const id = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
      if (typeof id !== 'string' || !/^[1-9]\d{0,15}$/.test(id)) {
        errors.push({ field: 'matches', code: 'invalid', details: `${JSON.stringify(raw)?.slice(0, 40) ?? String(raw)} is not a match id.` });
      } else if (ids.includes(id)) {
        errors.push({ field: 'matches', code: 'duplicate', details: `Match ${id} is listed twice.` });
      } else ids.push(id);
    }
    if (errors.length === 0) {
      // One query for all of them; another account's match is unknown here, exactly like one that does not exist.
      const found = new Set((await this.matches.refs(accountId, { ids }, { limit: ids.length })).map((r) => r.id));
      for (const id of ids) if (!found.has(id)) errors.push({ field: 'matches', code: 'not_found', details: `No match ${id} in this account.` });
    }
    if (errors.length) throw validationError(errors);
    return ids;
  }

  async capture(accountId: number, matchIds: string[], baseUrl = ''): Promise<{ id: string }> {
    const ids = await this.checkMatchIds(accountId, matchIds);
    const id = randomUUID();
    await this.db.query('INSERT INTO evidence_packs (id, account_id, match_ids, status, base_url) VALUES ($1, $2, $3, $4, $5)', [id, accountId, ids, 'pending', baseUrl]);
    await this.queue(id);
    return { id };
  }

  /** The automatic pack of a new match (account setting): once per match, however often the event comes. */
  async captureAutomatically(accountId: number, matchId: string): Promise<void> {
    const [setting] = await this.db.query('SELECT auto_capture FROM evidence_settings WHERE account_id = $1', [accountId]) as { auto_capture: boolean }[];
    if (!setting?.auto_capture) return;
    await this.db.query(
      `INSERT INTO evidence_packs (id, account_id, match_ids, status, automatic) VALUES ($1, $2, $3, 'pending', true)
       ON CONFLICT (account_id, (match_ids[1])) WHERE automatic DO NOTHING`,
      [randomUUID(), accountId, [matchId]],
    );
    // Queued again when the event comes twice (a crash between the insert and the send): the singleton key drops a duplicate.
    const [pack] = await this.db.query(`SELECT id, status FROM evidence_packs WHERE account_id = $1 AND automatic AND match_ids[1] = $2`, [accountId, matchId]) as { id: string; status: string }[];
    if (pack?.status === 'pending') await this.queue(pack.id, this.config.autoCaptureDelaySeconds);
  }

  private async queue(id: string, startAfterSeconds = 0, singletonKey = id): Promise<void> {
    await this.jobs.send(BUILD_QUEUE, { packId: id }, { singletonKey, retryLimit: ATTEMPTS - 1, retryDelaySeconds: 30, ...(startAfterSeconds ? { startAfterSeconds } : {}) });
  }

  /**
   * Queues again the builds whose worker died: pending packs whose heartbeat is older than the lease.
   * The dead worker's pg-boss job stays active until its expiry (15 min), so the new job gets a key of
   * its own per run (two recoveries of one run send one job); the build's claim stops double builds.
   */
  async recover(): Promise<number> {
    const stale = await this.db.query(
      `SELECT id, attempts FROM evidence_packs WHERE status = 'pending' AND heartbeat < now() - make_interval(secs => $1)`,
      [this.config.buildLeaseSeconds],
    ) as { id: string; attempts: number }[];
    for (const p of stale) {
      this.log.warn(`evidence pack ${p.id}: its build (run ${p.attempts}) stopped without finishing (no heartbeat for ${this.config.buildLeaseSeconds} s); built again`);
      await this.queue(p.id, 0, `${p.id}:after-run-${p.attempts}`);
    }
    return stale.length;
  }

  async get(accountId: number, packId: string): Promise<EvidencePackSummary | null> {
    const pack = await this.row(accountId, packId);
    return pack && summaryOf(pack);
  }

  async row(accountId: number, packId: string): Promise<EvidencePack | null> {
    if (typeof packId !== 'string' || !UUID.test(packId)) return null;
    return this.db.getRepository(EvidencePack).findOneBy({ id: packId, accountId });
  }

  list(accountId: number, offset: number, limit: number): Promise<[EvidencePack[], number]> {
    return this.db.getRepository(EvidencePack).findAndCount({ where: { accountId }, order: { created: 'DESC', id: 'ASC' }, skip: offset, take: limit });
  }

  /** The WACZ of a complete pack: 404 when not the account's, 409 while building or when it failed. */
  async download(accountId: number, packId: string): Promise<{ stream: Readable; size: number; pack: EvidencePack }> {
    const pack = await this.row(accountId, packId);
    if (!pack) throw notFound('No such evidence pack.');
    if (pack.status === 'pending') throw conflict('pack_pending', 'The evidence pack is still being built; its status says when it is complete.');
    if (pack.status === 'failed') throw conflict('pack_failed', `The evidence pack could not be built: ${pack.error ?? 'unknown error'}`);
    const opened = await this.blobs.open(pack.blobKey!);
    // A complete pack whose file is gone is a server fault someone must see, never an empty download.
    if (!opened) throw new BlobMissingError(pack.blobKey!);
    return { stream: opened.stream, size: opened.size, pack };
  }

  /** The build job: the WACZ into the blob store, the row complete, `evidence.captured` through the outbox. */
  async build(packId: string): Promise<void> {
    // The claim: one build at a time per pack, taken from a worker whose heartbeat stopped (kill -9).
    const claimed = returnedRows<{ attempts: number }>(await this.db.query(
      `UPDATE evidence_packs SET attempts = attempts + 1, heartbeat = now()
       WHERE id = $1 AND status = 'pending' AND (heartbeat IS NULL OR heartbeat < now() - make_interval(secs => $2)) RETURNING attempts`,
      [packId, this.config.buildLeaseSeconds],
    ));
    const attempt = claimed[0]?.attempts;
    const pack = await this.db.getRepository(EvidencePack).findOneBy({ id: packId });
    if (!pack || pack.status !== 'pending') return;
    // Another worker builds it now, or did until a moment ago: the job is retried after its backoff, by when either the pack is done or that build is stale.
    if (attempt === undefined) throw new Error(`evidence pack ${packId} is being built by another worker (heartbeat within ${this.config.buildLeaseSeconds} s)`);
    if (attempt > MAX_RUNS) {
      this.log.error(`evidence pack ${pack.id} failed: its build was started ${attempt - 1} times and never finished`);
      await this.finish(pack, { status: 'failed', blobKey: null, sha256: null, size: null, summary: {}, error: `The build was started ${attempt - 1} times and its worker stopped each time (killed or out of memory).` });
      return;
    }
    const beat = setInterval(() => {
      this.db.query(`UPDATE evidence_packs SET heartbeat = now() WHERE id = $1 AND status = 'pending'`, [packId])
        .catch((err: Error) => this.log.warn(`evidence pack ${packId}: heartbeat failed (${err.message})`));
    }, Math.max(250, (this.config.buildLeaseSeconds * 1000) / 4));
    beat.unref();
    try {
      const started = Date.now();
      const built = await this.builder.build({ id: pack.id, accountId: pack.accountId, matchIds: pack.matchIds, baseUrl: pack.baseUrl });
      const key = `evidence/${pack.accountId}/${pack.id}.wacz`;
      await this.blobs.put(key, built.wacz);
      const digest = sha256(built.wacz);
      await this.finish(pack, { status: 'complete', blobKey: key, sha256: digest, size: built.wacz.length, summary: { ...built.summary, buildMs: Date.now() - started }, error: null });
      this.log.info(`evidence pack ${pack.id}: ${built.wacz.length} bytes in ${Date.now() - started} ms`);
    } catch (err) {
      const message = ((err as Error).message ?? String(err)).slice(0, 500);
      if (isBlobStoreOutage(err)) {
        // Not one of the build's attempts: the job runner retries (and logs) an outage for as long as the store's
        // retries last, and abandon() ends the pack if the store stays down through all of them.
        await this.db.query('UPDATE evidence_packs SET attempts = attempts - 1, heartbeat = NULL WHERE id = $1', [pack.id]);
        throw err;
      }
      if (attempt < ATTEMPTS) {
        this.log.warn(`evidence pack ${pack.id}: attempt ${attempt} failed (${message}); retried`);
        // The job's retry claims it again without waiting for the lease.
        await this.db.query('UPDATE evidence_packs SET heartbeat = NULL WHERE id = $1', [pack.id]);
        throw err;
      }
      this.log.error(`evidence pack ${pack.id} failed: ${message}`);
      await this.finish(pack, { status: 'failed', blobKey: null, sha256: null, size: null, summary: {}, error: shownError(err, message) });
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * A build job that failed for good (its cause in the job runner's log). Only the store's outage ends the pack
   * here (its retries are used up); the build's own failures end it in build(), and a worker that died is recover()'s.
   */
  async abandon(packId: string, storeDown = false): Promise<void> {
    if (!storeDown) return;
    const pack = await this.db.getRepository(EvidencePack).findOneBy({ id: packId });
    if (!pack || pack.status !== 'pending') return;
    await this.finish(pack, { status: 'failed', blobKey: null, sha256: null, size: null, summary: {}, error: STORE_DOWN });
  }

  private async finish(pack: EvidencePack, change: Pick<EvidencePack, 'status' | 'blobKey' | 'sha256' | 'size' | 'summary' | 'error'>): Promise<void> {
    await this.db.transaction(async (tx) => {
      const done = await tx.query(
        `UPDATE evidence_packs SET status = $2, blob_key = $3, sha256 = $4, size = $5, summary = $6, error = $7, completed = now()
         WHERE id = $1 AND status = 'pending' RETURNING completed`,
        [pack.id, change.status, change.blobKey, change.sha256, change.size, JSON.stringify(change.summary), change.error],
      );
      if (!returnedRows(done).length) return;
      await this.events.enqueue(
        {
          type: 'evidence.captured',
          accountId: pack.accountId,
          data: {
            id: pack.id, status: change.status as 'complete' | 'failed', match_ids: pack.matchIds, sha256: change.sha256, size: change.size,
            url: `${pack.baseUrl}/api/v4/evidence/${pack.id}/`, error: change.error,
          },
        },
        tx,
        { key: `evidence:${pack.id}` },
      );
    });
    await this.events.flush();
  }

  async settings(accountId: number): Promise<{ auto_capture: boolean }> {
    const [row] = await this.db.query('SELECT auto_capture FROM evidence_settings WHERE account_id = $1', [accountId]) as { auto_capture: boolean }[];
    return { auto_capture: row?.auto_capture ?? false };
  }

  async updateSettings(accountId: number, body: unknown): Promise<{ auto_capture: boolean }> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError([{ field: 'non_field_errors', code: 'invalid', details: 'Expected a JSON object.' }]);
    const errors: ErrorItem[] = Object.keys(body).filter((k) => k !== 'auto_capture').map((k) => ({ field: k, code: 'unknown_field', details: `Unknown setting "${k.slice(0, 100)}".` }));
    const value = (body as { auto_capture?: unknown }).auto_capture;
    if (value !== undefined && typeof value !== 'boolean') errors.push({ field: 'auto_capture', code: 'invalid', details: 'auto_capture is a boolean.' });
    if (errors.length) throw validationError(errors);
    if (typeof value === 'boolean') {
      await this.db.query(
        'INSERT INTO evidence_settings (account_id, auto_capture) VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET auto_capture = EXCLUDED.auto_capture',
        [accountId, value],
      );
    }
    return this.settings(accountId);
  }

  /** The account-deleted hook: its packs' files, rows and settings (idempotent). */
  async forgetAccount(accountId: number): Promise<void> {
    await this.blobs.deletePrefix(`evidence/${accountId}`);
    await this.db.query('DELETE FROM evidence_packs WHERE account_id = $1', [accountId]);
    await this.db.query('DELETE FROM evidence_settings WHERE account_id = $1', [accountId]);
  }
}
