import type { DataSource } from 'typeorm';
import { returnedRows } from '@filigrane/core';
import type { CrawlerConfig } from './crawl-settings.js';
import { sleep, type Claim, type CrawlRun, type RunState, type Validators } from './crawl-run.js';

const TIME_LIMIT = 'time limit (crawl_delay) reached';

/**
 * The frontier in PostgreSQL and this process's claims on it: pages claimed a few at a time
 * (FOR UPDATE SKIP LOCKED, with a lease so a killed worker's pages are claimed again), images and
 * videos claimed once per crawl, and whether the crawl is over.
 */
export class CrawlFrontier {
  constructor(
    private readonly db: DataSource,
    private readonly cfg: CrawlerConfig,
  ) {}

  /** Reads the session (and beats its heartbeat). */
  async state(sessionId: number): Promise<RunState | null> {
    const rows = returnedRows<RunState>(await this.db.query(
      `UPDATE crawl_sessions SET heartbeat = now() WHERE id = $1
       RETURNING id, account_id, site, state, cycle, search, download_delay, download_timeout, max_pages, max_bytes, pages, bytes,
                 (deadline IS NOT NULL AND now() > deadline) AS over_time`,
      [sessionId],
    ));
    return rows[0] ?? null;
  }

  /** Nothing to claim: writes what this process holds; true when the crawl has no page left anywhere (it is over). */
  async idle(run: CrawlRun): Promise<boolean> {
    await run.writes.flush().catch(() => undefined);
    if (run.inflight > 0) {
      await sleep(50);
      return false;
    }
    const left: { ready: number; busy: number }[] = await this.db.query(
      `SELECT count(*) FILTER (WHERE state = 'queued')::int AS ready, count(*) FILTER (WHERE state = 'claimed')::int AS busy
       FROM crawl_urls WHERE session_id = $1 AND kind = 'page' AND cycle = $2 AND state <> 'done'`,
      [run.s.id, run.s.cycle],
    );
    if (left[0]!.ready > 0) return false; // links just written
    if (left[0]!.busy === 0) {
      run.end ??= { finish: true, limit: null };
      return true;
    }
    await sleep(200);
    return false;
  }

  /** The next page to crawl: from the pages this process claimed, claiming more (one round trip) when none is left. */
  async next(run: CrawlRun): Promise<Claim | null> {
    for (;;) {
      if (run.stopNow) return null; // paused, deleted or out of time: the claims left are handed back
      const claim = run.queue.shift();
      if (claim) {
        run.inflight++;
        return claim;
      }
      if (run.end) return null;
      const refill = (run.refilling ??= this.refill(run).finally(() => (run.refilling = null)));
      await refill;
      if (run.queue.length === 0) return null;
    }
  }

  /** Reads the session (still running? a limit reached?) and claims up to `run.batch` pages. */
  private async refill(run: CrawlRun): Promise<void> {
    const s = await this.state(run.s.id);
    if (!s || s.state !== 'running' || s.cycle !== run.s.cycle) {
      run.end = { finish: false, limit: null };
      return;
    }
    run.s = s;
    const pending = run.writes.pending;
    const pages = s.pages + pending.pages;
    const limit = s.over_time ? TIME_LIMIT : pages >= s.max_pages ? 'page limit reached' : Number(s.bytes) + pending.bytes >= Number(s.max_bytes) ? 'byte limit reached' : null;
    if (limit) {
      run.end = { finish: true, limit };
      return;
    }
    const n = Math.min(run.batch, s.max_pages - pages - run.inflight);
    if (n <= 0) return;
    // An expired lease of a page this process still holds (a fetch waiting out Retry-After) is not taken back by itself.
    const rows = returnedRows<Claim>(await this.db.query(
      // A page still 'claimed' after its lease was held by a worker that stopped (kill -9, out of
      // memory): counted, so that a page that kills every worker taking it is skipped (crawl-runner).
      `UPDATE crawl_urls SET state = 'claimed', claimed_until = now() + make_interval(secs => $3),
         takeovers = takeovers + CASE WHEN state = 'claimed' THEN 1 ELSE 0 END
       WHERE id IN (
         SELECT id FROM crawl_urls
         WHERE session_id = $1 AND kind = 'page' AND cycle = $2
           AND (state = 'queued' OR (state = 'claimed' AND claimed_until < now() AND id <> ALL($5::bigint[])))
         ORDER BY depth, id LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING id, url, depth, etag, last_modified, takeovers`,
      [s.id, s.cycle, this.cfg.claimLease, n, [...run.held]],
    ));
    rows.sort((a, b) => a.depth - b.depth || Number(a.id) - Number(b.id));
    for (const r of rows) run.held.add(r.id);
    run.queue.push(...rows);
  }

  /**
   * Extends the leases of the pages this process holds. A page can wait longer than the lease
   * behind a slow origin (Crawl-delay, Retry-After, time-outs, one connection per origin); without
   * this, another worker took it and the page was fetched twice. A killed process renews nothing,
   * so its pages are still taken over one lease after it stopped.
   */
  async renew(run: CrawlRun): Promise<void> {
    if (run.held.size === 0) return;
    await this.db.query(
      `UPDATE crawl_urls SET claimed_until = now() + make_interval(secs => $2) WHERE id = ANY($1::bigint[]) AND state = 'claimed'`,
      [[...run.held], this.cfg.claimLease],
    );
  }

  /**
   * Reads the session between refills (every second): a pause, a DELETE or the end of the crawl's
   * time (crawl_delay) stops the loops before their next request, not after the pages already
   * claimed (up to 64, each as slow as its origin).
   */
  async watch(run: CrawlRun): Promise<void> {
    if (run.end) return;
    const s = await this.state(run.s.id);
    if (!s || s.state !== 'running' || s.cycle !== run.s.cycle) run.end ??= { finish: false, limit: null };
    else if (s.over_time) run.end ??= { finish: true, limit: TIME_LIMIT };
    else return;
    run.stopNow = true;
  }

  /** Hands back the pages this process claimed but did not crawl (its loops are out). */
  async release(run: CrawlRun): Promise<void> {
    if (!run.queue.length) return;
    await this.db.query(`UPDATE crawl_urls SET state = 'queued', claimed_until = NULL WHERE id = ANY($1::bigint[]) AND state = 'claimed'`, [run.queue.map((c) => c.id)]);
    for (const c of run.queue) run.held.delete(c.id);
    run.queue = [];
  }

  /** Claims URLs of images or videos for this crawl: returns those no page of the crawl handled yet. */
  async claimOnce(run: CrawlRun, kind: 'image' | 'video', urls: string[]): Promise<(Validators & { id: string; url: string })[]> {
    return this.db.query(
      `INSERT INTO crawl_urls (session_id, kind, url, cycle, state) SELECT $1, $2, u, $3, 'claimed' FROM unnest($4::text[]) AS u
       ON CONFLICT (session_id, url, kind) DO UPDATE SET cycle = EXCLUDED.cycle, state = 'claimed'
         WHERE crawl_urls.cycle < EXCLUDED.cycle OR crawl_urls.state <> 'done'
       RETURNING id, url, etag, last_modified`,
      [run.s.id, kind, run.s.cycle, urls],
    );
  }
}
