import { createHash } from 'node:crypto';
import { BlobStoreUnavailableError, type BlobStore, type Clock, type MatchPipeline, type Sighting } from '@filigrane/core';
import type { FetchedResource } from '@filigrane/net';
import { ImageTooSmallError, prepareQuery, probeQuery } from '@filigrane/vision';
import { sniffKind } from './content-sniff.js';
import type { CrawlFrontier } from './crawl-frontier.js';
import { pageFields, runPrefix, validatorsOf, type CrawlRun, type MatchedImage, type PageContext, type Validators } from './crawl-run.js';
import type { CrawlerConfig } from './crawl-settings.js';
import { canonicalUrl, inSite } from './crawl-url.js';
import type { DoneMark } from './crawl-writes.js';
import { crawlerSource } from './crawler-source.js';
import { readCredit } from './image-credit.js';
import type { PageDigester } from './page-digester.js';
import type { RunFetcher } from './run-fetcher.js';

/**
 * The Accept header of a current browser's image requests: content-negotiating image CDNs serve it
 * WebP or AVIF where they would serve a header-less client JPEG, so the crawler sees what users see.
 */
export const IMAGE_ACCEPT = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';

/** Bytes of matched images kept per crawl for the sightings of further pages. */
const MATCHED_IMAGES_BYTES = 64 * 1024 * 1024;

/** Redirects followed from an image URL to its file (CDNs, resizers, moved paths), as browsers follow several. */
export const MAX_IMAGE_REDIRECTS = 5;

/** The images of crawled pages: fetched once per crawl, their credit lines read, their pixels handed to the match pipeline. */
export class ImageSightings {
  constructor(
    private readonly frontier: CrawlFrontier,
    private readonly fetcher: RunFetcher,
    private readonly digester: PageDigester,
    private readonly pipeline: MatchPipeline,
    private readonly blobs: BlobStore,
    private readonly cfg: CrawlerConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * The images of a page: each URL is fetched once per crawl (conditional GET when known), its
   * credit line read and its pixels matched; a URL matched earlier in the crawl gets a sighting for
   * this page too, without being fetched or identified again. `fetchedAs` is the page's own
   * response when the page was an image; `hops` the redirects that led to `urls`.
   */
  async images(run: CrawlRun, urls: string[], page: PageContext, fetchedAs: FetchedResource | null, hops = 0): Promise<void> {
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
    const kept = new Set<string>();
    try {
      if (fresh.length) {
        for (const row of await this.frontier.claimOnce(run, 'image', fresh.map((f) => f.url))) {
          let fetched: DoneMark['fetched'];
          let storeDown = false;
          try {
            fetched = await this.imageOnce(run, row.url, row, page, fetchedAs, hops);
          } catch (err) {
            // The store failing is no fact about the image: not recorded, not done; the page fails
            // with it and is crawled again, and the image with it.
            storeDown = err instanceof BlobStoreUnavailableError;
            if (storeDown) throw err;
            run.writes.item('image', row.url, { pageUrl: page.url, outcome: `error: ${(err as Error).message}`.slice(0, 300) });
          } finally {
            if (!storeDown) run.writes.markDone({ id: row.id, fetched });
            if (!storeDown) kept.add(row.url);
          }
        }
      }
    } catch (err) {
      // The store failed: the images not kept are the page's next crawl's to fetch again.
      if (err instanceof BlobStoreUnavailableError) for (const f of fresh) if (!kept.has(f.url)) run.images.delete(f.url);
      throw err;
    } finally {
      for (const f of fresh) f.settle(run.matched.get(f.url) ?? null);
    }
    for (const handled of known) {
      const m = await handled;
      if (m) await this.resight(run, m, page).catch(() => undefined);
    }
  }

  private async imageOnce(run: CrawlRun, url: string, row: Validators & { id: string }, page: PageContext, fetchedAs: FetchedResource | null, hops: number): Promise<DoneMark['fetched']> {
    const s = run.s;
    const w = run.writes;
    const pageUrl = page.url;
    let res: FetchedResource;
    let records: Buffer | undefined;
    if (fetchedAs) {
      res = fetchedAs; // the "page" was itself an image (a link to an image file): its fetch is reused
    } else {
      const got = await this.fetcher.fetch(run, url, row, this.cfg.maxImageBytes, IMAGE_ACCEPT);
      if ('refused' in got) return void w.item('image', url, { pageUrl, outcome: got.refused });
      res = got.res;
      records = (await this.digester.digest(res, got.at, false)).records;
    }
    const base = { pageUrl, status: res.status, contentType: res.contentType, bytes: res.body.length, warcRecords: records };
    if (res.status === 304) return void w.item('image', url, { ...base, outcome: 'not modified' });
    if (res.status >= 300 && res.status < 400) return void w.item('image', url, { ...base, outcome: await this.redirected(run, url, res, page, hops) });
    if (res.status < 200 || res.status > 299) return void w.item('image', url, { ...base, outcome: `HTTP ${res.status}` });
    const md5 = createHash('md5').update(res.body).digest('hex');
    const fetched = validatorsOf(res, md5);
    if (sniffKind(res.body, res.contentType) !== 'image') {
      w.item('image', url, { ...base, md5, outcome: 'not an image' });
      return fetched;
    }
    w.count('images');
    const blob = `${runPrefix(s)}/i/${row.id}`;
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
    // The same pixels under another URL: identified once per crawl (a miss is not searched again).
    const before = run.identified.get(md5);
    if (kind === 'web' && before === null && !credit) {
      w.item('image', url, { ...fields, outcome: 'no match (same image as one identified earlier in this crawl)' });
      return fetched;
    }
    const lastModified = typeof res.headers?.['last-modified'] === 'string' ? new Date(res.headers['last-modified']) : undefined;
    try {
      const prepared = kind === 'web' ? (before?.prepared ?? (await prepareQuery(res.body))) : undefined;
      const matches = await this.pipeline.submit({
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

  /**
   * An image URL that redirects: its target is an image of the same page, fetched under the same
   * rules (site, robots.txt, SSRF guard, once per crawl). A target another page already handles is
   * not waited for (two pages redirecting into each other's images would wait forever): its match,
   * when known, is shown for this page too.
   */
  private async redirected(run: CrawlRun, url: string, res: FetchedResource, page: PageContext, hops: number): Promise<string> {
    const raw = String(res.headers?.location ?? '').trim();
    if (raw === '') return 'redirect without location';
    const target = canonicalUrl(raw, res.url);
    if (!target) return `redirect to ${raw.slice(0, 200)} (not followed: only http(s) URLs without credentials)`;
    if (hops >= MAX_IMAGE_REDIRECTS) return `redirect to ${target} (more than ${MAX_IMAGE_REDIRECTS} redirects, not followed)`;
    if (!run.images.has(target)) await this.images(run, [target], page, null, hops + 1);
    else if (run.matched.has(target)) await this.resight(run, run.matched.get(target)!, page).catch(() => undefined);
    const matched = run.matched.get(target);
    if (matched) run.matched.set(url, matched); // later pages showing `url` get their sighting too
    return `redirect to ${target}`;
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
    await this.pipeline.submit({
      accountId: run.s.account_id, source: crawlerSource.id, kind: 'web',
      image: { bytes: m.bytes, url: m.url, lastModified: m.lastModified, prepared: m.prepared },
      imageUrl: m.url, page: pageFields(page), seenAt: this.clock.now(), sessionId: run.s.id, credit: m.credit ?? undefined,
    });
  }
}
