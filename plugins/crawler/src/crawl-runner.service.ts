import { createHash } from 'node:crypto';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { CORE_SETTINGS, returnedRows, TOKENS, type BlobStore, type Clock, type CoreSettings, type EventPublisher, type Sighting } from '@filigrane/core';
import { FetchError, type FetchedResource } from '@filigrane/net';
import { ImageTooSmallError, prepareQuery, probeQuery, type PreparedQuery } from '@filigrane/vision';
import { BatchWriter } from './batch-writer.service.js';
import { sniffKind } from './content-sniff.js';
import { CRAWLER_SETTINGS, type CrawlerConfig } from './crawl-settings.js';
import { canonicalUrl, inSite } from './crawl-url.js';
import { CrawlWrites, type DoneMark } from './crawl-writes.js';
import { crawlerSource } from './crawler-source.js';
import type { ExtractedPage, PageMeta } from './html-extract.js';
import { readCredit } from './image-credit.js';
import { PoliteFetcher } from './polite-fetcher.js';
import { PageDigester } from './page-digester.js';
import type { SessionRow } from './crawl.service.js';

/** Largest video fetched for matching (the pipeline's own limit on a sighting). */
const MAX_VIDEO_BYTES = 50 * 1024 * 1024;
/**
 * The Accept header of a current browser's image requests: content-negotiating image CDNs serve it
 * WebP or AVIF where they would serve a header-less client JPEG, so the crawler sees what users see.
 */
export const IMAGE_ACCEPT = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';

/** What a crawl loop reads of its session (its row, and whether its time is up). */
type RunState = Pick<
  SessionRow,
  'id' | 'account_id' | 'site' | 'state' | 'cycle' | 'search' | 'download_delay' | 'download_timeout' | 'max_pages' | 'max_bytes' | 'pages' | 'bytes'
> & { over_time: boolean };

interface Claim {
  id: string;
  url: string;
  depth: number;
  etag: string | null;
  last_modified: string | null;
}

type Validators = { etag: string | null; last_modified: string | null };
type PageContext = PageMeta & { url: string };

/** An image of this crawl that matched: kept (bounded) so each further page showing it gets its own sighting. */
interface MatchedImage {
  url: string;
  bytes: Buffer;
  prepared: PreparedQuery;
  credit: string | null;
  lastModified?: Date;
}

/** Links remembered per crawl to skip repeated ones (a navigation menu on every page); beyond, the database de-duplicates. */
const MAX_LINKS_REMEMBERED = 500_000;
/** Bytes of matched images kept per crawl for the sightings of further pages. */
const MATCHED_IMAGES_BYTES = 64 * 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One crawl (session and cycle) as this process runs it: pages claimed in one round trip and not
 * crawled yet, buffered writes, and what this crawl already saw (image URLs, image contents by
 * MD5, robots.txt exchanges recorded in its WARC).
 */
class CrawlRun {
  queue: Claim[] = [];
  refilling: Promise<void> | null = null;
  inflight = 0;
  flushedAt = Date.now();
  /** Why the loops stopped: the crawl ended (finish it, with the limit reached if any), or it is no longer ours to run. */
  end: { finish: boolean; limit: string | null } | null = null;
  /** Image URL -> its match in this crawl, once handled (null: nothing to repeat on other pages). */
  readonly images = new Map<string, Promise<MatchedImage | null>>();
  /** Image URL -> its match, set by the page that handles it (read when its promise above settles). */
  readonly matched = new Map<string, MatchedImage>();
  /** Image content (MD5) -> identified before in this crawl: the match, or null for no match. */
  readonly identified = new Map<string, MatchedImage | null>();
  matchedBytes = 0;
  readonly robotsRecorded = new Set<string>();
  /** Links this process already wrote to the frontier: not sent to the database again from every page that repeats them. */
  private readonly linked = new Set<string>();
  readonly writes: CrawlWrites;

  constructor(
    public s: RunState,
    writesFor: (s: RunState) => CrawlWrites,
    readonly batch: number,
  ) {
    this.writes = writesFor(s);
  }

  /** Adds links to the frontier (through the buffered writes), each once per process while memory allows. */
  addLinks(urls: string[], depth: number): void {
    const fresh = urls.filter((u) => !this.linked.has(u));
    if (this.linked.size < MAX_LINKS_REMEMBERED) for (const u of fresh) this.linked.add(u);
    this.writes.addLinks(fresh, depth);
  }
}


/** Blob prefix of one session's files. */
export const sessionPrefix = (accountId: number, sessionId: number) => `crawler/${accountId}/${sessionId}`;

/**
 * Runs crawls: a pool of loops per process takes pages of the session's frontier, claimed from
 * PostgreSQL a few at a time (FOR UPDATE SKIP LOCKED, with a lease so a killed worker's pages are
 * claimed again), fetches them politely, follows links inside the site, fetches and matches
 * images, and buffers what it learns (CrawlWrites: one statement per few pages). The worker that
 * finds the frontier empty writes the one batch of the crawl.
 */
@injectable()
export class CrawlRunner {
  private readonly fetcher: PoliteFetcher;
  private readonly writer: BatchWriter;
  private readonly digester = new PageDigester();
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(CRAWLER_SETTINGS.token) private readonly cfg: CrawlerConfig,
    @inject(CORE_SETTINGS.token) core: CoreSettings,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
  ) {
    this.fetcher = new PoliteFetcher(db, this.cfg, [...core.fetchAllowHosts]);
    this.writer = new BatchWriter(db, blobs);
  }

  /** Joins the crawl `cycle` of a session in this process (a no-op when already joined). */
  join(sessionId: number, cycle: number): void {
    const key = `${sessionId}:${cycle}`;
    if (this.stopping || this.running.has(key)) return;
    const run = this.run(sessionId, cycle)
      .catch((err) => console.error(`crawl ${key} stopped: ${(err as Error).message}`))
      .finally(() => this.running.delete(key));
    this.running.set(key, run);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running.values()]);
    await this.digester.close();
  }

  private async run(sessionId: number, cycle: number): Promise<void> {
    const started = returnedRows(await this.db.query(
      `UPDATE crawl_sessions SET state = 'running', stime = COALESCE(stime, now()), mtime = now(), heartbeat = now(),
         deadline = COALESCE(deadline, now() + make_interval(secs => crawl_delay))
       WHERE id = $1 AND cycle = $2 AND state IN ('pending', 'running') RETURNING id`,
      [sessionId, cycle],
    ));
    if (started.length === 0) return;
    const s = await this.state(sessionId);
    if (!s || s.cycle !== cycle) return;
    const run = new CrawlRun(s, (st) => new CrawlWrites(this.db, this.blobs, st.id, st.cycle, `${this.prefix(st)}/w`), Math.min(64, this.cfg.concurrency * 2));
    await Promise.all(Array.from({ length: this.cfg.concurrency }, () => this.loop(run)));
    // Every loop is out: write what they learnt, hand back the pages claimed but not crawled.
    await run.writes.flush().catch((err) => console.error(`crawl ${sessionId}:${cycle}: ${(err as Error).message}`));
    if (run.queue.length) {
      await this.db.query(`UPDATE crawl_urls SET state = 'queued', claimed_until = NULL WHERE id = ANY($1::bigint[]) AND state = 'claimed'`, [run.queue.map((c) => c.id)]);
      run.queue = [];
    }
    if (run.end?.finish && !this.stopping) await this.finish(run.s, run.end.limit);
  }

  private async state(sessionId: number): Promise<RunState | null> {
    const rows = returnedRows<RunState>(await this.db.query(
      `UPDATE crawl_sessions SET heartbeat = now() WHERE id = $1
       RETURNING id, account_id, site, state, cycle, search, download_delay, download_timeout, max_pages, max_bytes, pages, bytes,
                 (deadline IS NOT NULL AND now() > deadline) AS over_time`,
      [sessionId],
    ));
    return rows[0] ?? null;
  }

  /**
   * One crawl loop: one request at a time, pipelined: while a fetched page is processed (parsed,
   * its images fetched and matched, its writes buffered), the loop already fetches the next one.
   */
  private async loop(run: CrawlRun): Promise<void> {
    let processing: Promise<void> = Promise.resolve();
    try {
      for (;;) {
        if (this.stopping || run.end) return;
        const claim = await this.next(run);
        if (!claim) {
          if (run.end) return;
          await processing;
          if (await this.idle(run)) return;
          continue;
        }
        let got: Awaited<ReturnType<CrawlRunner['fetch']>> | Error;
        try {
          got = await this.fetch(run, claim.url, claim, this.cfg.maxPageBytes);
        } catch (err) {
          got = err as Error;
        }
        await processing; // at most one page of this loop is processed while the next is fetched
        processing = this.processPage(run, claim, got);
      }
    } finally {
      await processing;
    }
  }

  /** Nothing to claim: writes what this process holds; true when the crawl has no page left anywhere (it is over). */
  private async idle(run: CrawlRun): Promise<boolean> {
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

  private async processPage(run: CrawlRun, claim: Claim, got: Awaited<ReturnType<CrawlRunner['fetch']>> | Error): Promise<void> {
    let fetched: DoneMark['fetched'];
    try {
      if (got instanceof Error) throw got;
      fetched = await this.crawlPage(run, claim, got);
    } catch (err) {
      // A failure on one page (a parser crash, a blob write) never ends the crawl.
      run.writes.item('page', claim.url, { outcome: `error: ${(err as Error).message}`.slice(0, 500) });
    }
    run.writes.markDone({ id: claim.id, fetched });
    run.inflight--;
    if (run.writes.pending.rows >= run.batch * 4 || Date.now() - run.flushedAt > 1000) {
      run.flushedAt = Date.now();
      await run.writes.flush().catch((err) => console.error(`crawl ${run.s.id}:${run.s.cycle}: ${(err as Error).message}`));
    }
  }

  /** The next page to crawl: from the pages this process claimed, claiming more (one round trip) when none is left. */
  private async next(run: CrawlRun): Promise<Claim | null> {
    for (;;) {
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
    const limit = s.over_time ? 'time limit (crawl_delay) reached' : pages >= s.max_pages ? 'page limit reached' : Number(s.bytes) + pending.bytes >= Number(s.max_bytes) ? 'byte limit reached' : null;
    if (limit) {
      run.end = { finish: true, limit };
      return;
    }
    const n = Math.min(run.batch, s.max_pages - pages - run.inflight);
    if (n <= 0) return;
    const rows = returnedRows<Claim>(await this.db.query(
      `UPDATE crawl_urls SET state = 'claimed', claimed_until = now() + make_interval(secs => $3)
       WHERE id IN (
         SELECT id FROM crawl_urls
         WHERE session_id = $1 AND kind = 'page' AND cycle = $2
           AND (state = 'queued' OR (state = 'claimed' AND claimed_until < now()))
         ORDER BY depth, id LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING id, url, depth, etag, last_modified`,
      [s.id, s.cycle, this.cfg.claimLease, n],
    ));
    rows.sort((a, b) => a.depth - b.depth || Number(a.id) - Number(b.id));
    run.queue.push(...rows);
  }

  private prefix(s: RunState): string {
    return `${sessionPrefix(s.account_id, s.id)}/${s.cycle}`;
  }

  /** Fetches with politeness, keeps the exchange for the WARC and counts it against the crawl's limits. */
  private async fetch(run: CrawlRun, url: string, validators: Validators | null, maxBytes: number, accept?: string) {
    const s = run.s;
    const origin = new URL(url).origin;
    const robots = await this.fetcher.rules(origin, s.download_timeout);
    if (robots.exchange && !run.robotsRecorded.has(origin)) {
      // The robots.txt exchange this crawl relies on is part of its WARC (fetched once, cached across crawls).
      run.robotsRecorded.add(origin);
      const r = robots.exchange;
      const { records } = await this.digester.digest(r, new Date(robots.at), false);
      run.writes.item('robots', r.url, { status: r.status, contentType: r.contentType, bytes: r.body.length, outcome: 'robots.txt', warcRecords: records });
    }
    if (robots.unavailable) return { refused: `${robots.unavailable.code}: ${robots.unavailable.message}` };
    if (!robots.rules.allowed(url)) return { refused: 'disallowed by robots.txt' };
    const delay = Math.max(s.download_delay, Math.min(robots.rules.crawlDelay() ?? 0, this.cfg.crawlDelayCap));
    const headers: Record<string, string> = {};
    if (accept) headers.accept = accept;
    if (validators?.etag) headers['if-none-match'] = validators.etag;
    if (validators?.last_modified) headers['if-modified-since'] = validators.last_modified;
    let res: FetchedResource;
    try {
      res = await this.fetcher.fetch(url, { delay, timeoutSeconds: s.download_timeout, maxBytes, headers });
    } catch (err) {
      if (err instanceof FetchError) return { refused: `${err.code}: ${err.message}` };
      throw err;
    }
    run.writes.count('bytes', res.body.length);
    return { res, at: this.clock.now() };
  }

  /** Processes one fetched page; returns the validators to remember when it was fetched (2xx). */
  private async crawlPage(run: CrawlRun, claim: Claim, got: Awaited<ReturnType<CrawlRunner['fetch']>>): Promise<DoneMark['fetched']> {
    const s = run.s;
    const w = run.writes;
    if ('refused' in got) return void w.item('page', claim.url, { outcome: got.refused! });
    const { res } = got;
    w.count('pages');
    const ok = res.status >= 200 && res.status <= 299;
    const kind = ok ? sniffKind(res.body, res.contentType) : null;
    // WARC records and, for HTML, the parsing: in the worker thread while this loop waits.
    const digested = await this.digester.digest(res, got.at, kind === 'html');
    const base = { status: res.status, contentType: res.contentType, bytes: res.body.length, warcRecords: digested.records };
    if (res.status >= 300 && res.status < 400 && res.status !== 304) {
      const target = canonicalUrl(String(res.headers?.location ?? ''), res.url);
      if (target && inSite(target, s.site)) run.addLinks([target], claim.depth);
      return void w.item('page', claim.url, { ...base, outcome: target ? `redirect to ${target}${inSite(target, s.site) ? '' : ' (other site, not followed)'}` : 'redirect without location' });
    }
    if (res.status === 304) return void w.item('page', claim.url, { ...base, outcome: 'not modified' });
    if (!ok) return void w.item('page', claim.url, { ...base, outcome: `HTTP ${res.status}` });
    const fetched = validatorsOf(res, null);
    if (kind === 'image') {
      w.item('page', claim.url, { ...base, outcome: 'image' });
      await this.images(run, [claim.url], { url: claim.url, type: 'web' }, res);
      return fetched;
    }
    if (kind !== 'html') {
      w.item('page', claim.url, { ...base, outcome: `not HTML (${kind})` });
      return fetched;
    }
    const page = digested.page;
    if (!page) {
      w.item('page', claim.url, { ...base, outcome: `unreadable HTML: ${digested.pageError}` });
      return fetched;
    }
    if (!page.nofollow && claim.depth < this.cfg.maxDepth) run.addLinks(page.links.filter((l) => inSite(l, s.site)), claim.depth + 1);
    w.item('page', claim.url, { ...base, title: page.meta.title ?? null, outcome: 'ok' });
    await this.videos(run, claim.url, videosOf(page));
    for (const doc of page.documents) w.item('document', doc.url, { pageUrl: claim.url, outcome: `found (${doc.via})` });
    await this.images(run, page.images.map((i) => i.url), { url: claim.url, ...page.meta }, null);
    return fetched;
  }

  /**
   * Video discovery has this one place: each video of the site is fetched once per crawl and, when
   * the session searches, handed to the match pipeline as a video sighting (time-aligned matches).
   */
  private async videos(run: CrawlRun, pageUrl: string, videos: { url: string; via: string }[]): Promise<void> {
    const s = run.s;
    for (const v of videos) {
      if (!s.search || !inSite(v.url, s.site)) {
        run.writes.item('video', v.url, { pageUrl, outcome: `found (${v.via})${s.search ? ', other site: not fetched' : ''}` });
        continue;
      }
      const [row] = await this.claimOnce(run, 'video', [v.url]);
      if (!row) continue; // already handled in this crawl, from another page
      let fetched: DoneMark['fetched'];
      try {
        fetched = await this.videoOnce(run, v, row, pageUrl);
      } finally {
        run.writes.markDone({ id: row.id, fetched });
      }
    }
  }

  /** Claims URLs of images or videos for this crawl: returns those no page of the crawl handled yet. */
  private async claimOnce(run: CrawlRun, kind: 'image' | 'video', urls: string[]): Promise<(Validators & { id: string; url: string })[]> {
    return this.db.query(
      `INSERT INTO crawl_urls (session_id, kind, url, cycle, state) SELECT $1, $2, u, $3, 'claimed' FROM unnest($4::text[]) AS u
       ON CONFLICT (session_id, url, kind) DO UPDATE SET cycle = EXCLUDED.cycle, state = 'claimed'
         WHERE crawl_urls.cycle < EXCLUDED.cycle OR crawl_urls.state <> 'done'
       RETURNING id, url, etag, last_modified`,
      [run.s.id, kind, run.s.cycle, urls],
    );
  }

  private async videoOnce(run: CrawlRun, v: { url: string; via: string }, row: Validators & { id: string }, pageUrl: string): Promise<DoneMark['fetched']> {
    const s = run.s;
    const w = run.writes;
    const got = await this.fetch(run, v.url, row, MAX_VIDEO_BYTES);
    if ('refused' in got) return void w.item('video', v.url, { pageUrl, outcome: got.refused! });
    const { res } = got;
    // Every download of the crawl is in its WARC, videos included.
    const { records } = await this.digester.digest(res, got.at, false);
    const base = { pageUrl, status: res.status, contentType: res.contentType, bytes: res.body.length, warcRecords: records };
    if (res.status === 304) return void w.item('video', v.url, { ...base, outcome: 'not modified' });
    if (res.status < 200 || res.status > 299) return void w.item('video', v.url, { ...base, outcome: `HTTP ${res.status}` });
    const md5 = createHash('md5').update(res.body).digest('hex');
    const fetched = validatorsOf(res, md5);
    const pipeline = crawlerSource.pipeline;
    if (!pipeline) {
      w.item('video', v.url, { ...base, md5, outcome: 'match pipeline unavailable' });
      return fetched;
    }
    try {
      const matches = await pipeline.submit({
        accountId: s.account_id, source: crawlerSource.id, kind: 'web', image: {}, video: { bytes: res.body },
        imageUrl: v.url, page: { url: pageUrl }, seenAt: this.clock.now(), sessionId: s.id,
      });
      w.item('video', v.url, { ...base, md5, matches: matches.length, outcome: matches.length ? 'matched (video)' : `no match (${v.via})` });
    } catch (err) {
      w.item('video', v.url, { ...base, md5, outcome: `match failed: ${(err as Error).message}`.slice(0, 300) });
    }
    return fetched;
  }

  /**
   * The images of a page: each URL is fetched once per crawl (conditional GET when known), its
   * credit line read and its pixels matched; a URL matched earlier in the crawl gets a sighting for
   * this page too, without being fetched or identified again. `fetchedAs` is the page's own
   * response when the page was an image.
   */
  private async images(run: CrawlRun, urls: string[], page: PageContext, fetchedAs: FetchedResource | null): Promise<void> {
    const fresh: { url: string; settle(m: MatchedImage | null): void }[] = [];
    const known: Promise<MatchedImage | null>[] = [];
    for (const url of new Set(urls)) {
      const handled = run.images.get(url);
      if (handled) {
        known.push(handled);
        continue;
      }
      let settle!: (m: MatchedImage | null) => void;
      run.images.set(url, new Promise((r) => (settle = r)));
      if (!fetchedAs && !inSite(url, run.s.site) && !this.cfg.offsiteImages) {
        run.writes.item('image', url, { pageUrl: page.url, outcome: 'other site, not fetched' });
        settle(null);
      } else fresh.push({ url, settle });
    }
    // This page's own images first, then those other pages handle: never waiting on each other.
    try {
      if (fresh.length) {
        for (const row of await this.claimOnce(run, 'image', fresh.map((f) => f.url))) {
          let fetched: DoneMark['fetched'];
          try {
            fetched = await this.imageOnce(run, row.url, row, page, fetchedAs);
          } catch (err) {
            run.writes.item('image', row.url, { pageUrl: page.url, outcome: `error: ${(err as Error).message}`.slice(0, 300) });
          } finally {
            run.writes.markDone({ id: row.id, fetched });
          }
        }
      }
    } finally {
      for (const f of fresh) f.settle(run.matched.get(f.url) ?? null);
    }
    for (const handled of known) {
      const m = await handled;
      if (m) await this.resight(run, m, page).catch(() => undefined);
    }
  }

  private async imageOnce(run: CrawlRun, url: string, row: Validators & { id: string }, page: PageContext, fetchedAs: FetchedResource | null): Promise<DoneMark['fetched']> {
    const s = run.s;
    const w = run.writes;
    const pageUrl = page.url;
    let res: FetchedResource;
    let records: Buffer | undefined;
    if (fetchedAs) {
      res = fetchedAs; // the "page" was itself an image (a link to an image file): its fetch is reused
    } else {
      const got = await this.fetch(run, url, row, this.cfg.maxImageBytes, IMAGE_ACCEPT);
      if ('refused' in got) return void w.item('image', url, { pageUrl, outcome: got.refused! });
      res = got.res;
      records = (await this.digester.digest(res, got.at, false)).records;
    }
    const base = { pageUrl, status: res.status, contentType: res.contentType, bytes: res.body.length, warcRecords: records };
    if (res.status === 304) return void w.item('image', url, { ...base, outcome: 'not modified' });
    if (res.status < 200 || res.status > 299) return void w.item('image', url, { ...base, outcome: `HTTP ${res.status}` });
    const md5 = createHash('md5').update(res.body).digest('hex');
    const fetched = validatorsOf(res, md5);
    if (sniffKind(res.body, res.contentType) !== 'image') {
      w.item('image', url, { ...base, md5, outcome: 'not an image' });
      return fetched;
    }
    w.count('images');
    const blob = `${this.prefix(s)}/i/${row.id}`;
    await this.blobs.put(blob, res.body);
    const credit = await readCredit(res.body);
    let info: { width: number; height: number; format: string } | null = null;
    let unreadable: string | null = null;
    try {
      // The formats copies are identified in (WebP and AVIF too); `format` in the log says which was served.
      info = await probeQuery(res.body);
    } catch (err) {
      unreadable = err instanceof ImageTooSmallError ? 'too small to identify' : `unreadable image: ${(err as Error).message}`.slice(0, 300);
    }
    if (info && Math.min(info.width, info.height) < this.cfg.minImageSide) {
      unreadable = `too small to identify (under ${this.cfg.minImageSide} px)`;
    }
    const fields = { ...base, md5, credit, blob, width: info?.width ?? null, height: info?.height ?? null, format: info?.format ?? null };
    const kind: Sighting['kind'] | null = s.search && !unreadable ? 'web' : credit ? 'credit' : null;
    if (!kind) {
      w.item('image', url, { ...fields, outcome: unreadable ?? 'not searched' });
      return fetched;
    }
    const pipeline = crawlerSource.pipeline;
    if (!pipeline) {
      w.item('image', url, { ...fields, outcome: 'match pipeline unavailable' });
      return fetched;
    }
    // The same pixels under another URL: identified once per crawl (a miss is not searched again).
    const before = run.identified.get(md5);
    if (kind === 'web' && before === null && !credit) {
      w.item('image', url, { ...fields, outcome: 'no match (same image as one identified earlier in this crawl)' });
      return fetched;
    }
    const lastModified = typeof res.headers?.['last-modified'] === 'string' ? new Date(res.headers['last-modified']) : undefined;
    try {
      const prepared = kind === 'web' ? (before?.prepared ?? (await prepareQuery(res.body))) : undefined;
      const matches = await pipeline.submit({
        accountId: s.account_id,
        source: crawlerSource.id,
        kind,
        image: { bytes: res.body, url, lastModified: lastModified && !Number.isNaN(lastModified.getTime()) ? lastModified : undefined, prepared },
        imageUrl: url,
        page: pageFields(page),
        seenAt: this.clock.now(),
        sessionId: s.id,
        credit: credit ?? undefined,
      });
      if (kind === 'web' && prepared) this.remember(run, url, md5, matches.length ? { url, bytes: res.body, prepared, credit, lastModified: lastModified && !Number.isNaN(lastModified.getTime()) ? lastModified : undefined } : null);
      w.item('image', url, {
        ...fields, matches: matches.length, watermarked: matches.some((m) => m.watermarked),
        outcome: unreadable ?? (matches.length ? `matched (${matches.map((m) => m.kind).join(', ')})` : 'no match'),
      });
    } catch (err) {
      w.item('image', url, { ...fields, outcome: `match failed: ${(err as Error).message}`.slice(0, 300) });
    }
    return fetched;
  }

  /** Keeps what an image's identification found, by URL and by content, within the memory bound. */
  private remember(run: CrawlRun, url: string, md5: string, matched: MatchedImage | null): void {
    if (matched && run.matchedBytes + matched.bytes.length > MATCHED_IMAGES_BYTES) return;
    if (matched) {
      run.matchedBytes += matched.bytes.length;
      run.matched.set(url, matched);
    }
    if (!run.identified.has(md5)) run.identified.set(md5, matched);
  }

  /** A matched image seen on one more page: a sighting for that page, identified again from the prepared query. */
  private async resight(run: CrawlRun, m: MatchedImage, page: PageContext): Promise<void> {
    const pipeline = crawlerSource.pipeline;
    if (!pipeline) return;
    await pipeline.submit({
      accountId: run.s.account_id, source: crawlerSource.id, kind: 'web',
      image: { bytes: m.bytes, url: m.url, lastModified: m.lastModified, prepared: m.prepared },
      imageUrl: m.url, page: pageFields(page), seenAt: this.clock.now(), sessionId: run.s.id, credit: m.credit ?? undefined,
    });
  }

  /** Writes the batch once (unique per session and crawl) and ends the crawl: done, or failed when no page could be fetched. */
  private async finish(s: RunState, limit: string | null): Promise<void> {
    const fetched: { ok: number; first: string | null }[] = await this.db.query(
      `SELECT count(*) FILTER (WHERE status BETWEEN 200 AND 399)::int AS ok,
              (SELECT outcome FROM crawl_items WHERE session_id = $1 AND cycle = $2 AND kind = 'page' ORDER BY id LIMIT 1) AS first
       FROM crawl_items WHERE session_id = $1 AND cycle = $2 AND kind = 'page'`,
      [s.id, s.cycle],
    );
    const failed = fetched[0]!.ok === 0;
    const reason = failed ? `no page could be fetched: ${fetched[0]!.first ?? 'no start URL'}` : limit;
    const keys = await this.writer.write(`${this.prefix(s)}/batch`, s.id, s.cycle);
    const inserted: { id: number; ctime: Date }[] = await this.db.query(
      `INSERT INTO crawl_batches (session_id, account_id, crawl_cycle, images, videos, documents, pages, artifacts)
       SELECT $1, $2, $3,
         count(*) FILTER (WHERE kind = 'image'), count(*) FILTER (WHERE kind = 'video'),
         count(*) FILTER (WHERE kind = 'document'), count(*) FILTER (WHERE kind = 'page'), $4
       FROM crawl_items WHERE session_id = $1 AND cycle = $3
       ON CONFLICT (session_id, crawl_cycle) DO NOTHING RETURNING id, ctime`,
      [s.id, s.account_id, s.cycle, keys],
    );
    if (inserted.length === 0) return; // another worker wrote it
    await this.db.query(
      `UPDATE crawl_sessions SET state = $3, cycle_count = $2, mtime = now(), reason = $4, deadline = NULL, remaining = NULL,
         next_crawl = now() + make_interval(hours => $5)
       WHERE id = $1 AND cycle = $2`,
      [s.id, s.cycle, failed ? 'failed' : 'done', reason, this.cfg.recrawlHours],
    );
    // The per-fetch pieces now live in the batch's TAR and WARC.
    await this.blobs.deletePrefix(`${this.prefix(s)}/w`).catch(() => undefined);
    await this.blobs.deletePrefix(`${this.prefix(s)}/i`).catch(() => undefined);
    const batch = inserted[0]!;
    const counts: { images: number; videos: number; documents: number; pages: number }[] = await this.db.query(
      'SELECT images, videos, documents, pages FROM crawl_batches WHERE id = $1',
      [batch.id],
    );
    await this.events.publish({
      type: 'crawl.batch.created',
      accountId: s.account_id,
      data: { session_id: s.id, batch_id: batch.id, crawl_cycle: s.cycle, state: failed ? 'failed' : 'done', url: `/api/v3/crawling/batches/${batch.id}/`, ...counts[0] },
    });
  }
}

/** The videos of a page: the one hook where video sightings will be wired into the pipeline. */
export function videosOf(page: ExtractedPage): { url: string; via: string }[] {
  return page.videos;
}

/** The validators of a 2xx response, remembered for the next crawl's conditional GET. */
function validatorsOf(res: FetchedResource, md5: string | null): NonNullable<DoneMark['fetched']> {
  const h = res.headers ?? {};
  return { etag: typeof h.etag === 'string' ? h.etag : null, lastModified: typeof h['last-modified'] === 'string' ? h['last-modified'] : null, md5 };
}

function pageFields(page: PageContext): NonNullable<Sighting['page']> {
  return { url: page.url, type: page.type, headline: page.headline, description: page.description, author: page.author, datePublished: page.datePublished, dateModified: page.dateModified };
}
