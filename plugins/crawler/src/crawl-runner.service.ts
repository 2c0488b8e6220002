import { createHash } from 'node:crypto';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { returnedRows, TOKENS, type AppConfig, type BlobStore, type Clock, type EventPublisher, type Sighting } from '@filigrane/core';
import { allowHostsFromEnv, FetchError, type FetchedResource } from '@filigrane/net';
import { ImageTooSmallError, probeImage } from '@filigrane/vision';
import { BatchWriter, type ItemKind } from './batch-writer.service.js';
import { sniffKind } from './content-sniff.js';
import { crawlerConfig, type CrawlerConfig } from './crawl-settings.js';
import { canonicalUrl, inSite } from './crawl-url.js';
import { crawlerSource } from './crawler-source.js';
import { extractPage, type ExtractedPage, type PageMeta } from './html-extract.js';
import { readCredit } from './image-credit.js';
import { PoliteFetcher } from './polite-fetcher.js';
import { warcExchange } from './warc-writer.js';

/** Largest video fetched for matching (the pipeline's own limit on a sighting). */
const MAX_VIDEO_BYTES = 50 * 1024 * 1024;

interface RunState {
  id: number;
  account_id: number;
  site: string;
  state: string;
  cycle: number;
  search: boolean;
  download_delay: number;
  download_timeout: number;
  max_pages: number;
  max_bytes: string;
  pages: number;
  bytes: string;
  over_time: boolean;
}

interface Claim {
  id: string;
  url: string;
  depth: number;
  etag: string | null;
  last_modified: string | null;
}

interface ItemFields {
  pageUrl?: string | null;
  status?: number | null;
  contentType?: string | null;
  bytes?: number | null;
  width?: number | null;
  height?: number | null;
  format?: string | null;
  md5?: string | null;
  credit?: string | null;
  title?: string | null;
  matches?: number;
  watermarked?: boolean;
  outcome: string;
  blob?: string | null;
  warc?: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Blob prefix of one session's files. */
export const sessionPrefix = (accountId: number, sessionId: number) => `crawler/${accountId}/${sessionId}`;

/**
 * Runs crawls: a pool of loops per process claims pages of the session's frontier in PostgreSQL
 * (FOR UPDATE SKIP LOCKED, with a lease so a killed worker's pages are claimed again), fetches them
 * politely, follows links inside the site, fetches and matches images, and the worker that finds
 * the frontier empty writes the one batch of the crawl.
 */
@injectable()
export class CrawlRunner {
  private readonly cfg: CrawlerConfig;
  private readonly fetcher: PoliteFetcher;
  private readonly writer: BatchWriter;
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Config) config: AppConfig,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
  ) {
    this.cfg = crawlerConfig(config);
    this.fetcher = new PoliteFetcher(db, this.cfg, allowHostsFromEnv(config.extra));
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
  }

  private async run(sessionId: number, cycle: number): Promise<void> {
    const started = returnedRows(await this.db.query(
      `UPDATE crawl_sessions SET state = 'running', stime = COALESCE(stime, now()), mtime = now(), heartbeat = now(),
         deadline = COALESCE(deadline, now() + make_interval(secs => crawl_delay))
       WHERE id = $1 AND cycle = $2 AND state IN ('pending', 'running') RETURNING id`,
      [sessionId, cycle],
    ));
    if (started.length === 0) return;
    await Promise.all(Array.from({ length: this.cfg.concurrency }, () => this.loop(sessionId, cycle)));
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

  private async loop(sessionId: number, cycle: number): Promise<void> {
    for (;;) {
      if (this.stopping) return;
      const s = await this.state(sessionId);
      if (!s || s.state !== 'running' || s.cycle !== cycle) return;
      const limit = s.over_time ? 'time limit (crawl_delay) reached' : s.pages >= s.max_pages ? 'page limit reached' : Number(s.bytes) >= Number(s.max_bytes) ? 'byte limit reached' : null;
      if (limit) return this.finish(s, limit);
      const claim = await this.claim(sessionId, cycle);
      if (!claim) {
        const busy: { n: number }[] = await this.db.query(
          `SELECT count(*)::int AS n FROM crawl_urls WHERE session_id = $1 AND kind = 'page' AND cycle = $2 AND state = 'claimed'`,
          [sessionId, cycle],
        );
        if (busy[0]!.n === 0) return this.finish(s, null);
        await sleep(200);
        continue;
      }
      try {
        await this.crawlPage(s, claim);
      } catch (err) {
        // A failure on one page (a database write after DELETE, a parser crash) never ends the crawl.
        await this.item(s, 'page', claim.url, { outcome: `error: ${(err as Error).message}`.slice(0, 500) }).catch(() => undefined);
      }
      await this.db.query(`UPDATE crawl_urls SET state = 'done', claimed_until = NULL WHERE id = $1 AND cycle = $2`, [claim.id, cycle]);
    }
  }

  private async claim(sessionId: number, cycle: number): Promise<Claim | null> {
    const rows = returnedRows<Claim>(await this.db.query(
      `UPDATE crawl_urls SET state = 'claimed', claimed_until = now() + make_interval(secs => $3)
       WHERE id = (
         SELECT id FROM crawl_urls
         WHERE session_id = $1 AND kind = 'page' AND cycle = $2
           AND (state = 'queued' OR (state = 'claimed' AND claimed_until < now()))
         ORDER BY depth, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, url, depth, etag, last_modified`,
      [sessionId, cycle, this.cfg.claimLease],
    ));
    return rows[0] ?? null;
  }

  /** One row of the crawl's logs; a URL reprocessed after a restart replaces its row, never adds one. */
  private async item(s: RunState, kind: ItemKind, url: string, f: ItemFields): Promise<void> {
    await this.db.query(
      `INSERT INTO crawl_items (session_id, cycle, kind, url, page_url, status, content_type, bytes, width, height, format, md5, credit, title,
                                matches, watermarked, outcome, blob, warc)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
       ON CONFLICT (session_id, cycle, kind, url) DO UPDATE SET status = EXCLUDED.status, content_type = EXCLUDED.content_type,
         bytes = EXCLUDED.bytes, width = EXCLUDED.width, height = EXCLUDED.height, format = EXCLUDED.format, md5 = EXCLUDED.md5,
         credit = EXCLUDED.credit, title = EXCLUDED.title, matches = EXCLUDED.matches, watermarked = EXCLUDED.watermarked,
         outcome = EXCLUDED.outcome, blob = EXCLUDED.blob, warc = EXCLUDED.warc`,
      [
        s.id, s.cycle, kind, url, f.pageUrl ?? null, f.status ?? null, f.contentType ?? null, f.bytes ?? null, f.width ?? null, f.height ?? null,
        f.format ?? null, f.md5 ?? null, f.credit ?? null, f.title ?? null, f.matches ?? 0, f.watermarked ?? false, f.outcome, f.blob ?? null, f.warc ?? null,
      ],
    );
  }

  private prefix(s: RunState): string {
    return `${sessionPrefix(s.account_id, s.id)}/${s.cycle}`;
  }

  /** Fetches with politeness, keeps the exchange for the WARC and counts it against the crawl's limits. */
  private async fetch(s: RunState, url: string, validators: { etag: string | null; last_modified: string | null } | null, maxBytes: number, warcName: string) {
    const origin = new URL(url).origin;
    const rules = await this.fetcher.rules(origin, s.download_timeout);
    if (!rules.allowed(url)) return { refused: 'disallowed by robots.txt' as const };
    const delay = Math.max(s.download_delay, Math.min(rules.crawlDelay() ?? 0, this.cfg.crawlDelayCap));
    const headers: Record<string, string> = {};
    if (validators?.etag) headers['if-none-match'] = validators.etag;
    if (validators?.last_modified) headers['if-modified-since'] = validators.last_modified;
    let res: FetchedResource;
    try {
      res = await this.fetcher.fetch(url, { delay, timeoutSeconds: s.download_timeout, maxBytes, headers });
    } catch (err) {
      if (err instanceof FetchError) return { refused: `${err.code}: ${err.message}` };
      throw err;
    }
    const warc = `${this.prefix(s)}/w/${warcName}.warc.gz`;
    await this.blobs.put(warc, await warcExchange(res, this.clock.now()));
    await this.db.query('UPDATE crawl_sessions SET bytes = bytes + $2 WHERE id = $1', [s.id, res.body.length]);
    return { res, warc };
  }

  private async crawlPage(s: RunState, claim: Claim): Promise<void> {
    const got = await this.fetch(s, claim.url, claim, this.cfg.maxPageBytes, `p${claim.id}`);
    if ('refused' in got) return this.item(s, 'page', claim.url, { outcome: got.refused! });
    const { res, warc } = got;
    await this.db.query(`UPDATE crawl_sessions SET pages = pages + 1 WHERE id = $1`, [s.id]);
    const base = { status: res.status, contentType: res.contentType, bytes: res.body.length, warc };
    if (res.status >= 300 && res.status < 400 && res.status !== 304) {
      const target = canonicalUrl(String(res.headers?.location ?? ''), res.url);
      const followed = target && inSite(target, s.site) ? await this.enqueue(s, [target], claim.depth) : 0;
      return this.item(s, 'page', claim.url, { ...base, outcome: target ? `redirect to ${target}${followed || inSite(target, s.site) ? '' : ' (other site, not followed)'}` : 'redirect without location' });
    }
    if (res.status === 304) return this.item(s, 'page', claim.url, { ...base, outcome: 'not modified' });
    if (res.status < 200 || res.status > 299) return this.item(s, 'page', claim.url, { ...base, outcome: `HTTP ${res.status}` });
    await this.remember(claim.id, res);
    const kind = sniffKind(res.body, res.contentType);
    if (kind === 'image') {
      await this.item(s, 'page', claim.url, { ...base, outcome: 'image' });
      return this.image(s, claim.url, { url: claim.url, type: 'web' }, claim.url);
    }
    if (kind !== 'html') return this.item(s, 'page', claim.url, { ...base, outcome: `not HTML (${kind})` });
    let page: ExtractedPage;
    try {
      page = extractPage(res.body.toString('utf8'), res.url);
    } catch (err) {
      return this.item(s, 'page', claim.url, { ...base, outcome: `unreadable HTML: ${(err as Error).message}` });
    }
    if (!page.nofollow && claim.depth < this.cfg.maxDepth) await this.enqueue(s, page.links.filter((l) => inSite(l, s.site)), claim.depth + 1);
    await this.item(s, 'page', claim.url, { ...base, title: page.meta.title ?? null, outcome: 'ok' });
    await this.videos(s, claim.url, videosOf(page));
    for (const doc of page.documents) await this.item(s, 'document', doc.url, { pageUrl: claim.url, outcome: `found (${doc.via})` }).catch(() => undefined);
    for (const img of page.images) await this.image(s, img.url, { url: claim.url, ...page.meta }, null);
  }

  /**
   * Video discovery has this one place: each video of the site is fetched once per crawl and, when
   * the session searches, handed to the match pipeline as a video sighting (time-aligned matches).
   */
  private async videos(s: RunState, pageUrl: string, videos: { url: string; via: string }[]): Promise<void> {
    for (const v of videos) {
      if (!s.search || !inSite(v.url, s.site)) {
        await this.item(s, 'video', v.url, { pageUrl, outcome: `found (${v.via})${s.search ? ', other site: not fetched' : ''}` });
        continue;
      }
      const claimed: { id: string; etag: string | null; last_modified: string | null }[] = await this.db.query(
        `INSERT INTO crawl_urls (session_id, kind, url, cycle, state) VALUES ($1, 'video', $2, $3, 'claimed')
         ON CONFLICT (session_id, url, kind) DO UPDATE SET cycle = EXCLUDED.cycle, state = 'claimed'
           WHERE crawl_urls.cycle < EXCLUDED.cycle OR crawl_urls.state <> 'done'
         RETURNING id, etag, last_modified`,
        [s.id, v.url, s.cycle],
      );
      const row = claimed[0];
      if (!row) continue; // already handled in this crawl, from another page
      try {
        await this.videoOnce(s, v, row, pageUrl);
      } finally {
        await this.db.query(`UPDATE crawl_urls SET state = 'done' WHERE id = $1`, [row.id]);
      }
    }
  }

  private async videoOnce(s: RunState, v: { url: string; via: string }, row: { id: string; etag: string | null; last_modified: string | null }, pageUrl: string): Promise<void> {
    const got = await this.fetch(s, v.url, row, MAX_VIDEO_BYTES, `v${row.id}`);
    if ('refused' in got) return this.item(s, 'video', v.url, { pageUrl, outcome: got.refused! });
    const { res, warc } = got;
    const base = { pageUrl, status: res.status, contentType: res.contentType, bytes: res.body.length, warc };
    if (res.status === 304) return this.item(s, 'video', v.url, { ...base, outcome: 'not modified' });
    if (res.status < 200 || res.status > 299) return this.item(s, 'video', v.url, { ...base, outcome: `HTTP ${res.status}` });
    const md5 = createHash('md5').update(res.body).digest('hex');
    await this.remember(row.id, res, md5);
    const pipeline = crawlerSource.pipeline;
    if (!pipeline) return this.item(s, 'video', v.url, { ...base, md5, outcome: 'match pipeline unavailable' });
    try {
      const matches = await pipeline.submit({
        accountId: s.account_id, source: crawlerSource.id, kind: 'web', image: {}, video: { bytes: res.body },
        imageUrl: v.url, page: { url: pageUrl }, seenAt: this.clock.now(), sessionId: s.id,
      });
      await this.item(s, 'video', v.url, { ...base, md5, matches: matches.length, outcome: matches.length ? 'matched (video)' : `no match (${v.via})` });
    } catch (err) {
      await this.item(s, 'video', v.url, { ...base, md5, outcome: `match failed: ${(err as Error).message}`.slice(0, 300) });
    }
  }

  private async remember(urlId: string, res: FetchedResource, md5?: string): Promise<void> {
    const h = res.headers ?? {};
    await this.db.query(`UPDATE crawl_urls SET etag = $2, last_modified = $3, md5 = COALESCE($4, md5) WHERE id = $1`, [
      urlId, typeof h.etag === 'string' ? h.etag : null, typeof h['last-modified'] === 'string' ? h['last-modified'] : null, md5 ?? null,
    ]);
  }

  private async enqueue(s: RunState, urls: string[], depth: number): Promise<number> {
    if (urls.length === 0) return 0;
    const rows: unknown[] = await this.db.query(
      `INSERT INTO crawl_urls (session_id, kind, url, depth, cycle) SELECT $1, 'page', u, $3, $4 FROM unnest($2::text[]) AS u
       ON CONFLICT (session_id, url, kind) DO NOTHING RETURNING id`,
      [s.id, [...new Set(urls)], depth, s.cycle],
    );
    return rows.length;
  }

  /** Fetches one image once per crawl (conditional GET when known), reads its credit line and matches it. */
  private async image(s: RunState, url: string, page: PageMeta & { url: string }, fetchedAs: string | null): Promise<void> {
    const pageUrl = page.url;
    if (!fetchedAs && !inSite(url, s.site) && !this.cfg.offsiteImages) {
      return this.item(s, 'image', url, { pageUrl, outcome: 'other site, not fetched' }).catch(() => undefined);
    }
    const known: { id: string; cycle: number; state: string; etag: string | null; last_modified: string | null }[] = await this.db.query(
      `INSERT INTO crawl_urls (session_id, kind, url, cycle, state) VALUES ($1, 'image', $2, $3, 'claimed')
       ON CONFLICT (session_id, url, kind) DO UPDATE SET cycle = EXCLUDED.cycle, state = 'claimed'
         WHERE crawl_urls.cycle < EXCLUDED.cycle OR crawl_urls.state <> 'done'
       RETURNING id, cycle, state, etag, last_modified`,
      [s.id, url, s.cycle],
    );
    const row = known[0];
    if (!row) return; // already fetched in this crawl, from another page
    try {
      await this.imageOnce(s, url, row, page);
    } finally {
      await this.db.query(`UPDATE crawl_urls SET state = 'done' WHERE id = $1`, [row.id]);
    }
  }

  private async imageOnce(s: RunState, url: string, row: { id: string; etag: string | null; last_modified: string | null }, page: PageMeta & { url: string }): Promise<void> {
    const pageUrl = page.url;
    let res: FetchedResource;
    let warc: string | undefined;
    if (url === pageUrl) {
      // The "page" was itself an image (a link to an image file): reuse the claim's fetch.
      const got = await this.fetch(s, url, null, this.cfg.maxImageBytes, `i${row.id}`);
      if ('refused' in got) return this.item(s, 'image', url, { pageUrl, outcome: got.refused! });
      ({ res, warc } = got);
    } else {
      const got = await this.fetch(s, url, row, this.cfg.maxImageBytes, `i${row.id}`);
      if ('refused' in got) return this.item(s, 'image', url, { pageUrl, outcome: got.refused! });
      ({ res, warc } = got);
    }
    const base = { pageUrl, status: res.status, contentType: res.contentType, bytes: res.body.length, warc };
    if (res.status === 304) return this.item(s, 'image', url, { ...base, outcome: 'not modified' });
    if (res.status < 200 || res.status > 299) return this.item(s, 'image', url, { ...base, outcome: `HTTP ${res.status}` });
    const md5 = createHash('md5').update(res.body).digest('hex');
    await this.remember(row.id, res, md5);
    if (sniffKind(res.body, res.contentType) !== 'image') return this.item(s, 'image', url, { ...base, md5, outcome: 'not an image' });
    await this.db.query(`UPDATE crawl_sessions SET images = images + 1 WHERE id = $1`, [s.id]);
    const blob = `${this.prefix(s)}/i/${row.id}`;
    await this.blobs.put(blob, res.body);
    const credit = await readCredit(res.body);
    let info: { width: number; height: number; format: string } | null = null;
    let unreadable: string | null = null;
    try {
      info = await probeImage(res.body);
    } catch (err) {
      unreadable = err instanceof ImageTooSmallError ? 'too small to identify' : `unreadable image: ${(err as Error).message}`.slice(0, 300);
    }
    if (info && Math.min(info.width, info.height) < this.cfg.minImageSide) {
      unreadable = `too small to identify (under ${this.cfg.minImageSide} px)`;
    }
    const fields = { ...base, md5, credit, blob, width: info?.width ?? null, height: info?.height ?? null, format: info?.format ?? null };
    const kind: Sighting['kind'] | null = s.search && !unreadable ? 'web' : credit ? 'credit' : null;
    if (!kind) return this.item(s, 'image', url, { ...fields, outcome: unreadable ?? 'not searched' });
    const pipeline = crawlerSource.pipeline;
    if (!pipeline) return this.item(s, 'image', url, { ...fields, outcome: 'match pipeline unavailable' });
    const lastModified = typeof res.headers?.['last-modified'] === 'string' ? new Date(res.headers['last-modified']) : undefined;
    try {
      const matches = await pipeline.submit({
        accountId: s.account_id,
        source: crawlerSource.id,
        kind,
        image: { bytes: res.body, url, lastModified: lastModified && !Number.isNaN(lastModified.getTime()) ? lastModified : undefined },
        imageUrl: url,
        page: { url: pageUrl, type: page.type, headline: page.headline, description: page.description, author: page.author, datePublished: page.datePublished, dateModified: page.dateModified },
        seenAt: this.clock.now(),
        sessionId: s.id,
        credit: credit ?? undefined,
      });
      await this.item(s, 'image', url, {
        ...fields, matches: matches.length, watermarked: matches.some((m) => m.watermarked),
        outcome: unreadable ?? (matches.length ? `matched (${matches.map((m) => m.kind).join(', ')})` : 'no match'),
      });
    } catch (err) {
      await this.item(s, 'image', url, { ...fields, outcome: `match failed: ${(err as Error).message}`.slice(0, 300) });
    }
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
