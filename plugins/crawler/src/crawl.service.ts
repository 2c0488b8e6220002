import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import {
  conflict, dateConditionsSql, notFound, returnedRows, TOKENS,
  type BlobStore, type DateCondition, type JobQueue, type LoggerFactory,
} from '@filigrane/core';
import { ARTIFACT_FILES, type ArtifactName } from './batch-writer.service.js';
import { CRAWLER_SETTINGS, type CrawlerConfig, type NewSession } from './crawl-settings.js';
import { accountPrefix, sessionPrefix } from './crawl-run.js';

export const CRAWL_QUEUE = 'crawler.crawl';

export interface SessionRow {
  id: number;
  account_id: number;
  start_urls: string[];
  site: string;
  state: 'pending' | 'running' | 'failed' | 'done' | 'paused';
  cycle_count: number;
  cycle: number;
  search: boolean;
  crawl_delay: number;
  download_delay: number;
  download_timeout: number;
  max_pages: number;
  max_bytes: string;
  pages: number;
  bytes: string;
  images: number;
  reason: string | null;
  ctime: Date;
  mtime: Date;
  stime: Date | null;
  next_crawl: Date | null;
}

export interface BatchRow {
  id: number;
  session_id: number;
  crawl_cycle: number;
  ctime: Date;
  images: number;
  videos: number;
  documents: number;
  pages: number;
  artifacts: Partial<Record<ArtifactName, string>>;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function sessionView(base: string, r: SessionRow) {
  const self = `${base}/api/v3/crawling/sessions/${r.id}/`;
  return {
    url: self,
    id: r.id,
    ctime: iso(r.ctime),
    mtime: iso(r.mtime),
    stime: iso(r.stime),
    state: r.state,
    cycle_count: r.cycle_count,
    crawl_delay: r.crawl_delay,
    search: r.search,
    download_delay: r.download_delay,
    download_timeout: r.download_timeout,
    start_urls: r.start_urls,
    batches: `${self}batches/`,
    site: r.site,
    reason: r.reason,
    next_crawl: r.state === 'done' || r.state === 'failed' ? iso(r.next_crawl) : null,
    limits: { pages: r.max_pages, bytes: Number(r.max_bytes), seconds: r.crawl_delay },
    progress: { pages: r.pages, bytes: Number(r.bytes), images: r.images },
  };
}

export function batchView(base: string, r: BatchRow) {
  const self = `${base}/api/v3/crawling/batches/${r.id}/`;
  const link = (name: ArtifactName) => (r.artifacts[name] ? `${self}${ARTIFACT_FILES[name]}` : null);
  return {
    url: self,
    id: r.id,
    ctime: iso(r.ctime),
    session: `${base}/api/v3/crawling/sessions/${r.session_id}/`,
    crawl_cycle: r.crawl_cycle,
    images: { count: r.images, log: link('images_log'), tar: link('images_tar') },
    videos: { count: r.videos, log: link('videos_log') },
    documents: { count: r.documents, log: link('documents_log') },
    pages: { count: r.pages, log: link('pages_log'), warc: link('pages_warc') },
  };
}

/** Crawling sessions and batches of an account, and the transitions of a session's state. */
@injectable()
export class CrawlService {

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(CRAWLER_SETTINGS.token) private readonly cfg: CrawlerConfig,
    @inject(TOKENS.Loggers) private readonly loggers: LoggerFactory,
  ) {}

  async create(accountId: number, s: NewSession): Promise<SessionRow> {
    const rows: SessionRow[] = await this.db.query(
      `INSERT INTO crawl_sessions (account_id, start_urls, site, search, crawl_delay, download_delay, download_timeout, max_pages, max_bytes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [accountId, s.startUrls, s.site, s.search, s.crawlDelay, s.downloadDelay, s.downloadTimeout, this.cfg.maxPages, this.cfg.maxBytes],
    );
    return this.startCycle(accountId, rows[0]!.id, ['pending']);
  }

  async get(accountId: number, id: number): Promise<SessionRow> {
    const rows: SessionRow[] = await this.db.query('SELECT * FROM crawl_sessions WHERE id = $1 AND account_id = $2', [id, accountId]);
    if (!rows[0]) throw notFound('No crawling session with this id.');
    return rows[0];
  }

  async list(accountId: number, ctime: DateCondition[], offset: number, limit: number): Promise<[SessionRow[], number]> {
    return this.page('crawl_sessions', ['account_id = $1'], [accountId], ctime, offset, limit) as Promise<[SessionRow[], number]>;
  }

  async batches(accountId: number, sessionId: number | null, ctime: DateCondition[], offset: number, limit: number): Promise<[BatchRow[], number]> {
    if (sessionId !== null) await this.get(accountId, sessionId);
    const where = ['account_id = $1'];
    const params: unknown[] = [accountId];
    if (sessionId !== null) {
      params.push(sessionId);
      where.push(`session_id = $${params.length}`);
    }
    return this.page('crawl_batches', where, params, ctime, offset, limit) as Promise<[BatchRow[], number]>;
  }

  /**
   * A page of batches of each of the sessions in one query (GraphQL's nested `batches` and
   * `latestBatch` of a list of sessions): per session, newest first, the `limit` batches after the
   * first `offset` of those matching `ctime`.
   */
  async sessionBatches(accountId: number, sessionIds: readonly number[], ctime: DateCondition[], offset: number, limit: number): Promise<Map<number, BatchRow[]>> {
    const params: unknown[] = [accountId, sessionIds];
    const where = ['account_id = $1', 'session_id = ANY($2::int[])', ...dateConditionsSql('ctime', ctime, params)].join(' AND ');
    params.push(offset, offset + limit);
    const rows: BatchRow[] = await this.db.query(
      `SELECT * FROM (SELECT b.*, row_number() OVER (PARTITION BY session_id ORDER BY ctime DESC, id DESC) AS rank
         FROM crawl_batches b WHERE ${where}) x
       WHERE rank > $${params.length - 1} AND rank <= $${params.length} ORDER BY ctime DESC, id DESC`,
      params,
    );
    const bySession = new Map<number, BatchRow[]>(sessionIds.map((id) => [id, []]));
    for (const r of rows) bySession.get(r.session_id)?.push(r);
    return bySession;
  }

  /** Sessions of the account by id, in one query (a batch's `session`). */
  async sessionsByIds(accountId: number, ids: readonly number[]): Promise<SessionRow[]> {
    return this.db.query('SELECT * FROM crawl_sessions WHERE account_id = $1 AND id = ANY($2::int[])', [accountId, ids]);
  }

  async batch(accountId: number, id: number): Promise<BatchRow> {
    const rows: BatchRow[] = await this.db.query('SELECT * FROM crawl_batches WHERE id = $1 AND account_id = $2', [id, accountId]);
    if (!rows[0]) throw notFound('No crawling batch with this id.');
    return rows[0];
  }

  private async page(table: string, where: string[], params: unknown[], ctime: DateCondition[], offset: number, limit: number): Promise<[unknown[], number]> {
    const all = [...where, ...dateConditionsSql('ctime', ctime, params)].join(' AND ');
    const rows = await this.db.query(`SELECT * FROM ${table} WHERE ${all} ORDER BY ctime DESC, id DESC OFFSET ${offset} LIMIT ${limit + 1}`, params);
    // No count in these envelopes: one extra row tells whether there is a next page.
    return [rows.slice(0, limit), offset + rows.length];
  }

  /**
   * Starts the next crawl of a session (cycle_count + 1) when its state is one of `from`: every
   * known page is queued again (conditional GET will skip what did not change), start URLs are added.
   */
  private async startCycle(accountId: number, id: number, from: string[]): Promise<SessionRow> {
    const rows = returnedRows<SessionRow>(await this.db.query(
      `UPDATE crawl_sessions SET state = 'pending', cycle = cycle_count + 1, pages = 0, bytes = 0, images = 0, reason = NULL,
         stime = NULL, deadline = NULL, remaining = NULL, mtime = now(), next_crawl = NULL
       WHERE id = $1 AND account_id = $2 AND state = ANY($3) AND cycle = cycle_count RETURNING *`,
      [id, accountId, from],
    ));
    const s = rows[0];
    if (!s) {
      const current = await this.get(accountId, id);
      throw conflict('invalid_state', `The session is ${current.state}: a new crawl starts only when it is done or failed${current.state === 'paused' ? ' (resume it instead)' : ''}.`);
    }
    await this.db.query(`UPDATE crawl_urls SET state = 'queued', cycle = $2, claimed_until = NULL, takeovers = 0 WHERE session_id = $1 AND kind = 'page'`, [id, s.cycle]);
    await this.db.query(
      `INSERT INTO crawl_urls (session_id, kind, url, depth, cycle) SELECT $1, 'page', u, 0, $3 FROM unnest($2::text[]) AS u
       ON CONFLICT (session_id, url, kind) DO UPDATE SET depth = 0`,
      [id, s.start_urls, s.cycle],
    );
    await this.dispatch(s.id, s.cycle);
    return s;
  }

  /** Queues the crawl for the workers (several jobs: several processes may share one crawl). */
  async dispatch(sessionId: number, cycle: number): Promise<void> {
    for (let i = 0; i < this.cfg.workersPerCrawl; i++) await this.jobs.send(CRAWL_QUEUE, { sessionId, cycle });
  }

  crawl(accountId: number, id: number): Promise<SessionRow> {
    return this.startCycle(accountId, id, ['done', 'failed']);
  }

  async pause(accountId: number, id: number): Promise<SessionRow> {
    const rows = returnedRows<SessionRow>(await this.db.query(
      `UPDATE crawl_sessions SET state = 'paused', mtime = now(),
         remaining = CASE WHEN deadline IS NULL THEN NULL ELSE GREATEST(0, EXTRACT(EPOCH FROM deadline - now())) END, deadline = NULL
       WHERE id = $1 AND account_id = $2 AND state IN ('pending', 'running') RETURNING *`,
      [id, accountId],
    ));
    if (!rows[0]) throw conflict('invalid_state', `The session is ${(await this.get(accountId, id)).state}: only a pending or running session can be paused.`);
    return rows[0];
  }

  async resume(accountId: number, id: number): Promise<SessionRow> {
    const rows = returnedRows<SessionRow>(await this.db.query(
      `UPDATE crawl_sessions SET state = 'pending', mtime = now(),
         deadline = CASE WHEN remaining IS NULL THEN NULL ELSE now() + make_interval(secs => remaining) END, remaining = NULL
       WHERE id = $1 AND account_id = $2 AND state = 'paused' RETURNING *`,
      [id, accountId],
    ));
    if (!rows[0]) throw conflict('invalid_state', `The session is ${(await this.get(accountId, id)).state}: only a paused session can be resumed.`);
    await this.db.query(`UPDATE crawl_urls SET state = 'queued', claimed_until = NULL WHERE session_id = $1 AND kind = 'page' AND state = 'claimed'`, [id]);
    await this.dispatch(id, rows[0].cycle);
    return rows[0];
  }

  /** Stops the crawl at once (workers see the session gone) and removes it, its batches and files; matches stay. */
  async remove(accountId: number, id: number): Promise<void> {
    const rows = returnedRows(await this.db.query('DELETE FROM crawl_sessions WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId]));
    if (rows.length === 0) throw notFound('No crawling session with this id.');
    await this.blobs.deletePrefix(sessionPrefix(accountId, id));
  }

  /**
   * The account-deleted hook: its sessions go first (running crawls see them gone and stop), then every
   * file under the account's blob prefix, sessions a crash orphaned included. Idempotent.
   */
  async forgetAccount(accountId: number): Promise<void> {
    await this.db.query('DELETE FROM crawl_sessions WHERE account_id = $1', [accountId]);
    await this.blobs.deletePrefix(accountPrefix(accountId));
  }

  /** Schedule and recovery: crawls due again are started, crawls whose workers vanished are dispatched again. */
  async tick(): Promise<void> {
    const due: { id: number; account_id: number }[] = await this.db.query(
      `SELECT id, account_id FROM crawl_sessions WHERE state IN ('done', 'failed') AND next_crawl <= now() ORDER BY next_crawl LIMIT 100`,
    );
    for (const s of due) await this.startCycle(s.account_id, s.id, ['done', 'failed']).catch(() => undefined);
    await this.recover(this.cfg.claimLease);
  }

  /** Re-dispatches pending or running crawls with no heartbeat for `staleSeconds` (0: all of them, at boot). */
  async recover(staleSeconds: number): Promise<void> {
    const stale: { id: number; cycle: number }[] = await this.db.query(
      `SELECT id, cycle FROM crawl_sessions WHERE state IN ('pending', 'running')
         AND (heartbeat IS NULL OR heartbeat < now() - make_interval(secs => $1))`,
      [staleSeconds],
    );
    for (const s of stale) {
      // A takeover: the process that ran it stopped (kill -9, crash) or this one restarted.
      this.loggers.for('crawler').warn(staleSeconds
        ? `crawl ${s.id}:${s.cycle} taken over: no heartbeat for ${staleSeconds} s, its process stopped; dispatched again (pages it claimed are crawled again after their lease)`
        : `crawl ${s.id}:${s.cycle} resumed at start: dispatched again`);
      await this.dispatch(s.id, s.cycle);
    }
  }

  async artifact(accountId: number, batchId: number, file: string): Promise<{ key: string; contentType: string; file: string }> {
    const batch = await this.batch(accountId, batchId);
    const name = (Object.keys(ARTIFACT_FILES) as ArtifactName[]).find((n) => ARTIFACT_FILES[n] === file);
    const key = name ? batch.artifacts[name] : undefined;
    if (!name || !key) throw notFound('No such file in this batch.');
    return { key, contentType: file.endsWith('.tar') ? 'application/x-tar' : 'application/gzip', file };
  }
}
