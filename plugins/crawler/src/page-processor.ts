import { BlobStoreUnavailableError, type Logger } from '@filigrane/core';
import { sniffKind } from './content-sniff.js';
import { validatorsOf, type Claim, type CrawlRun } from './crawl-run.js';
import type { CrawlerConfig } from './crawl-settings.js';
import { MAX_TRAPS_REMEMBERED, pathTrap, TRAPS_LOGGED_PER_PAGE } from './crawl-traps.js';
import { canonicalUrl, inSite, MAX_URL_LENGTH } from './crawl-url.js';
import type { DoneMark } from './crawl-writes.js';
import type { ExtractedPage } from './html-extract.js';
import type { ImageSightings } from './image-sightings.js';
import type { PageDigester } from './page-digester.js';
import type { RunFetch } from './run-fetcher.js';
import type { VideoSightings } from './video-sightings.js';

/** The videos of a page: the one hook where video sightings will be wired into the pipeline. */
export function videosOf(page: ExtractedPage): { url: string; via: string }[] {
  return page.videos;
}

/** One fetched page: its WARC records, its links into the frontier, its images and videos to their sightings. */
export class PageProcessor {
  constructor(
    private readonly digester: PageDigester,
    private readonly images: ImageSightings,
    private readonly videos: VideoSightings,
    private readonly cfg: CrawlerConfig,
    private readonly log: Logger,
  ) {}

  async process(run: CrawlRun, claim: Claim, got: RunFetch | Error): Promise<void> {
    let fetched: DoneMark['fetched'];
    try {
      if (got instanceof Error) throw got;
      fetched = await this.crawlPage(run, claim, got);
    } catch (err) {
      if (err instanceof BlobStoreUnavailableError) {
        // The store failed, not the page: nothing is recorded and the page stays claimed, so it is
        // crawled again once its lease lapses (the store back), never kept as an error page whose
        // records and images the batch would lack.
        this.log.error(`crawl ${run.s.id}:${run.s.cycle}: ${claim.url} crawled again later: ${err.message}`);
        run.held.delete(claim.id);
        run.inflight--;
        return;
      }
      // A failure on one page (a parser crash, an unreadable file) never ends the crawl.
      run.writes.item('page', claim.url, { outcome: `error: ${(err as Error).message}`.slice(0, 500) });
    }
    run.writes.markDone({ id: claim.id, fetched });
    run.held.delete(claim.id);
    run.inflight--;
    if (run.writes.pending.rows >= run.batch * 4 || Date.now() - run.flushedAt > 1000) {
      run.flushedAt = Date.now();
      await run.writes.flush().catch((err) => this.log.error(`crawl ${run.s.id}:${run.s.cycle}: ${(err as Error).message}`, err));
    }
  }

  /**
   * A redirect is one more link hop: its target is queued one level deeper, so an endless chain
   * (`/r/1` -> `/r/2` -> ...) ends at CRAWL_MAX_DEPTH like an endless chain of links.
   */
  private redirect(run: CrawlRun, claim: Claim, from: string, location: string | string[] | undefined): string {
    const raw = String(location ?? '').trim();
    if (raw === '') return 'redirect without location';
    const target = canonicalUrl(raw, from);
    if (!target) return `redirect to ${raw.slice(0, 200)} (not followed: only http(s) URLs without credentials)`;
    if (!inSite(target, run.s.site)) return `redirect to ${target} (other site, not followed)`;
    if (claim.depth >= this.cfg.maxDepth) return `redirect to ${target} (deeper than ${this.cfg.maxDepth} links, not followed)`;
    const trap = pathTrap(target, this.cfg.maxPathSegments);
    if (trap) return `redirect to ${target} (not followed: ${trap})`;
    run.addLinks([target], claim.depth + 1);
    return `redirect to ${target}`;
  }

  /**
   * Queues a page's links, but not those whose path is a crawler trap: each of those is a row of the
   * pages log (`not followed: ...`), like a page robots.txt refuses. Links beyond a path's query
   * variants are refused when written (crawl-writes.ts).
   */
  private follow(run: CrawlRun, claim: Claim, links: string[], longLinks: string[]): void {
    const kept: string[] = [];
    let logged = 0;
    // Logged under their first MAX_URL_LENGTH characters: the log's URL column stays bounded.
    for (const link of longLinks) {
      const shown = `${link.slice(0, MAX_URL_LENGTH)}...`;
      if (run.trapped.has(shown)) continue;
      if (run.trapped.size < MAX_TRAPS_REMEMBERED) run.trapped.add(shown);
      run.writes.item('page', shown, { pageUrl: claim.url, outcome: `not followed: URL of ${link.length} characters, over ${MAX_URL_LENGTH} (crawler trap)` });
    }
    for (const link of links) {
      const trap = pathTrap(link, this.cfg.maxPathSegments);
      if (!trap) kept.push(link);
      else if (!run.trapped.has(link) && logged++ < TRAPS_LOGGED_PER_PAGE) {
        if (run.trapped.size < MAX_TRAPS_REMEMBERED) run.trapped.add(link);
        run.writes.item('page', link, { pageUrl: claim.url, outcome: `not followed: ${trap}` });
      }
    }
    run.addLinks(kept, claim.depth + 1);
  }

  /** Processes one fetched page; returns the validators to remember when it was fetched (2xx). */
  private async crawlPage(run: CrawlRun, claim: Claim, got: RunFetch): Promise<DoneMark['fetched']> {
    const s = run.s;
    const w = run.writes;
    if ('refused' in got) return void w.item('page', claim.url, { outcome: got.refused });
    const { res } = got;
    w.count('pages');
    const ok = res.status >= 200 && res.status <= 299;
    const kind = ok ? sniffKind(res.body, res.contentType) : null;
    // WARC records and, for HTML, the parsing: in the worker thread while this loop waits.
    const digested = await this.digester.digest(res, got.at, kind === 'html');
    const base = { status: res.status, contentType: res.contentType, bytes: res.body.length, warcRecords: digested.records };
    if (res.status >= 300 && res.status < 400 && res.status !== 304) {
      return void w.item('page', claim.url, { ...base, outcome: this.redirect(run, claim, res.url, res.headers?.location) });
    }
    if (res.status === 304) return void w.item('page', claim.url, { ...base, outcome: 'not modified' });
    if (!ok) return void w.item('page', claim.url, { ...base, outcome: `HTTP ${res.status}` });
    const fetched = validatorsOf(res, null);
    if (kind === 'image') {
      w.item('page', claim.url, { ...base, outcome: 'image' });
      await this.images.images(run, [claim.url], { url: claim.url, type: 'web' }, res);
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
    if (!page.nofollow && claim.depth < this.cfg.maxDepth) this.follow(run, claim, page.links.filter((l) => inSite(l, s.site)), page.longLinks.filter((l) => inSite(l, s.site)));
    w.item('page', claim.url, { ...base, title: page.meta.title ?? null, outcome: 'ok' });
    await this.videos.videos(run, claim.url, videosOf(page));
    for (const doc of page.documents) w.item('document', doc.url, { pageUrl: claim.url, outcome: `found (${doc.via})` });
    await this.images.images(run, page.images.map((i) => i.url), { url: claim.url, ...page.meta }, null);
    return fetched;
  }
}
