import type { FetchedResource } from '@filigrane/net';
import type { Sighting } from '@filigrane/core';
import type { PreparedQuery } from '@filigrane/vision';
import type { CrawlWrites, DoneMark } from './crawl-writes.js';
import type { PageMeta } from './html-extract.js';
import type { SessionRow } from './crawl.service.js';

/** What a crawl loop reads of its session (its row, and whether its time is up). */
export type RunState = Pick<
  SessionRow,
  'id' | 'account_id' | 'site' | 'state' | 'cycle' | 'search' | 'download_delay' | 'download_timeout' | 'max_pages' | 'max_bytes' | 'pages' | 'bytes'
> & { over_time: boolean };

/** A page of the frontier claimed by this process. */
export interface Claim {
  id: string;
  url: string;
  depth: number;
  etag: string | null;
  last_modified: string | null;
  /** Times the page was taken over from a worker that stopped while holding it. */
  takeovers: number;
}

export type Validators = { etag: string | null; last_modified: string | null };
export type PageContext = PageMeta & { url: string };

/** An image of this crawl that matched: kept (bounded) so each further page showing it gets its own sighting. */
export interface MatchedImage {
  url: string;
  bytes: Buffer;
  prepared: PreparedQuery;
  credit: string | null;
  lastModified?: Date;
}

/** Links remembered per crawl to skip repeated ones (a navigation menu on every page); beyond, the database de-duplicates. */
const MAX_LINKS_REMEMBERED = 500_000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One crawl (session and cycle) as this process runs it: pages claimed in one round trip and not
 * crawled yet, buffered writes, and what this crawl already saw (image URLs, image contents by
 * MD5, robots.txt exchanges recorded in its WARC).
 */
export class CrawlRun {
  queue: Claim[] = [];
  refilling: Promise<void> | null = null;
  inflight = 0;
  /** Pages this process claimed and has not finished (queued here or being crawled): their leases are renewed. */
  readonly held = new Set<string>();
  flushedAt = Date.now();
  /** Why the loops stopped: the crawl ended (finish it, with the limit reached if any), or it is no longer ours to run. */
  end: { finish: boolean; limit: string | null } | null = null;
  /** Set between refills (paused, deleted, out of time): no further page request is sent, even one already claimed. */
  stopNow = false;
  /** Image URL -> its match in this crawl, once handled (null: nothing to repeat on other pages). */
  readonly images = new Map<string, Promise<MatchedImage | null>>();
  /** Image URL -> its match, set by the page that handles it (read when its promise above settles). */
  readonly matched = new Map<string, MatchedImage>();
  /** Image content (MD5) -> identified before in this crawl: the match, or null for no match. */
  readonly identified = new Map<string, MatchedImage | null>();
  matchedBytes = 0;
  readonly robotsRecorded = new Set<string>();
  /** Trap links this process already logged (`not followed`): not logged again from every page that repeats them. */
  readonly trapped = new Set<string>();
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

/** Blob prefix of every file of one account. */
export const accountPrefix = (accountId: number) => `crawler/${accountId}`;

/** Blob prefix of one session's files. */
export const sessionPrefix = (accountId: number, sessionId: number) => `${accountPrefix(accountId)}/${sessionId}`;

/** Blob prefix of one crawl (session and cycle). */
export const runPrefix = (s: RunState) => `${sessionPrefix(s.account_id, s.id)}/${s.cycle}`;

/** The validators of a 2xx response, remembered for the next crawl's conditional GET. */
export function validatorsOf(res: FetchedResource, md5: string | null): NonNullable<DoneMark['fetched']> {
  const h = res.headers ?? {};
  return { etag: typeof h.etag === 'string' ? h.etag : null, lastModified: typeof h['last-modified'] === 'string' ? h['last-modified'] : null, md5 };
}

export function pageFields(page: PageContext): NonNullable<Sighting['page']> {
  return { url: page.url, type: page.type, headline: page.headline, description: page.description, author: page.author, datePublished: page.datePublished, dateModified: page.dateModified };
}
