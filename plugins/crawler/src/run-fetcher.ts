import type { Clock } from '@filigrane/core';
import { FetchError, type FetchedResource } from '@filigrane/net';
import type { CrawlerConfig } from './crawl-settings.js';
import type { CrawlRun, Validators } from './crawl-run.js';
import type { PageDigester } from './page-digester.js';
import type { PoliteFetcher } from './polite-fetcher.js';

/** A fetch of the crawl: the response and when it arrived, or why it was not made. */
export type RunFetch = { res: FetchedResource; at: Date } | { refused: string };

/** Fetches for a crawl: politely (robots.txt, delays), the robots.txt exchange kept in its WARC, bytes counted against its limits. */
export class RunFetcher {
  constructor(
    private readonly fetcher: PoliteFetcher,
    private readonly digester: PageDigester,
    private readonly cfg: CrawlerConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * `stoppable`: a page request not sent yet when the crawl is paused, deleted or out of time throws
   * FetchCancelled (the page is handed back); a page's images are still fetched, so no page is left half-done.
   */
  async fetch(run: CrawlRun, url: string, validators: Validators | null, maxBytes: number, accept?: string, stoppable = false): Promise<RunFetch> {
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
      res = await this.fetcher.fetch(url, { delay, timeoutSeconds: s.download_timeout, maxBytes, headers, cancelled: stoppable ? () => run.stopNow : undefined });
    } catch (err) {
      if (err instanceof FetchError) return { refused: `${err.code}: ${err.message}` };
      throw err;
    }
    run.writes.count('bytes', res.body.length);
    return { res, at: this.clock.now() };
  }
}
