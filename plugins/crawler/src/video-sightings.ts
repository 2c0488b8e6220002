import { createHash } from 'node:crypto';
import type { Clock, MatchPipeline } from '@filigrane/core';
import { crawlerSource } from './crawler-source.js';
import { inSite } from './crawl-url.js';
import type { DoneMark } from './crawl-writes.js';
import type { CrawlFrontier } from './crawl-frontier.js';
import { validatorsOf, type CrawlRun, type Validators } from './crawl-run.js';
import type { PageDigester } from './page-digester.js';
import type { RunFetcher } from './run-fetcher.js';

/** Largest video fetched for matching (the pipeline's own limit on a sighting). */
const MAX_VIDEO_BYTES = 50 * 1024 * 1024;

/**
 * Video discovery has this one place: each video of the site is fetched once per crawl and, when
 * the session searches, handed to the match pipeline as a video sighting (time-aligned matches).
 */
export class VideoSightings {
  constructor(
    private readonly frontier: CrawlFrontier,
    private readonly fetcher: RunFetcher,
    private readonly digester: PageDigester,
    private readonly pipeline: MatchPipeline,
    private readonly clock: Clock,
  ) {}

  async videos(run: CrawlRun, pageUrl: string, videos: { url: string; via: string }[]): Promise<void> {
    const s = run.s;
    for (const v of videos) {
      if (!s.search || !inSite(v.url, s.site)) {
        run.writes.item('video', v.url, { pageUrl, outcome: `found (${v.via})${s.search ? ', other site: not fetched' : ''}` });
        continue;
      }
      const [row] = await this.frontier.claimOnce(run, 'video', [v.url]);
      if (!row) continue; // already handled in this crawl, from another page
      let fetched: DoneMark['fetched'];
      try {
        fetched = await this.videoOnce(run, v, row, pageUrl);
      } finally {
        run.writes.markDone({ id: row.id, fetched });
      }
    }
  }

  private async videoOnce(run: CrawlRun, v: { url: string; via: string }, row: Validators & { id: string }, pageUrl: string): Promise<DoneMark['fetched']> {
    const s = run.s;
    const w = run.writes;
    const got = await this.fetcher.fetch(run, v.url, row, MAX_VIDEO_BYTES);
    if ('refused' in got) return void w.item('video', v.url, { pageUrl, outcome: got.refused });
    const { res } = got;
    // Every download of the crawl is in its WARC, videos included.
    const { records } = await this.digester.digest(res, got.at, false);
    const base = { pageUrl, status: res.status, contentType: res.contentType, bytes: res.body.length, warcRecords: records };
    if (res.status === 304) return void w.item('video', v.url, { ...base, outcome: 'not modified' });
    if (res.status < 200 || res.status > 299) return void w.item('video', v.url, { ...base, outcome: `HTTP ${res.status}` });
    const md5 = createHash('md5').update(res.body).digest('hex');
    const fetched = validatorsOf(res, md5);
    try {
      const matches = await this.pipeline.submit({
        accountId: s.account_id, source: crawlerSource.id, kind: 'web', image: {}, video: { bytes: res.body },
        imageUrl: v.url, page: { url: pageUrl }, seenAt: this.clock.now(), sessionId: s.id,
      });
      w.item('video', v.url, { ...base, md5, matches: matches.length, outcome: matches.length ? 'matched (video)' : `no match (${v.via})` });
    } catch (err) {
      w.item('video', v.url, { ...base, md5, outcome: `match failed: ${(err as Error).message}`.slice(0, 300) });
    }
    return fetched;
  }
}
