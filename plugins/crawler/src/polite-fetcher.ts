import type { DataSource } from 'typeorm';
import { returnedRows } from '@filigrane/core';
import { FetchError, safeFetch, type FetchedResource } from '@filigrane/net';
import { canonicalUrl } from './crawl-url.js';
import type { CrawlerConfig } from './crawl-settings.js';
import { robotsRules, type RobotsRules } from './robots-policy.js';

export interface PoliteRequest {
  /** Seconds between two requests to this origin (download_delay, or a larger Crawl-delay). */
  delay: number;
  timeoutSeconds: number;
  maxBytes: number;
  headers?: Record<string, string>;
  /** True once the request is no longer wanted (the crawl was paused or deleted while it waited for its slot). */
  cancelled?: () => boolean;
}

/** Thrown instead of sending a request whose crawl stopped while it waited for the origin. */
export class FetchCancelled extends Error {
  constructor() {
    super('the crawl stopped before this request was sent');
  }
}

const RETRIED_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRIED_ERRORS = new Set(['timeout', 'network_error', 'dns_error']);
/** Fetch failures that refuse the URL itself (SSRF guard, scheme): the same for every path of the origin. */
const REFUSALS = new Set(['address_not_allowed', 'scheme_not_allowed', 'invalid_url']);
const ROBOTS_TTL_MS = 10 * 60_000;
const ROBOTS_REDIRECTS = 5;

/** The http(s) URL a robots.txt redirect points to, or null (the crawler's one URL rule). */
function robotsRedirect(res: FetchedResource): string | null {
  const location = String(res.headers?.location ?? '').trim();
  return location ? canonicalUrl(location, res.url) : null;
}
const HOST_REREAD_MS = 1000;

export interface RobotsEntry {
  rules: RobotsRules;
  /** The robots.txt request and response, recorded in the WARC of each crawl that relies on them. */
  exchange: FetchedResource | null;
  at: number;
  /**
   * Why the rules are "nothing allowed" when no robots.txt file said so: the file could not be
   * fetched (a refused address, a time-out) or answered 5xx. Reported instead of "disallowed by robots.txt".
   */
  unavailable?: { code: string; message: string };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Retry-After as seconds ("120") or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (!raw) return undefined;
  if (/^\s*\d+\s*$/.test(raw)) return Number(raw);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/**
 * Every request of a crawl goes through here: one connection at a time per origin in this process,
 * request slots per origin reserved in PostgreSQL so the delay holds across worker processes,
 * robots.txt read once per origin (cached ten minutes), bounded retries on 429/5xx and network
 * errors with exponential backoff or the server's Retry-After, all through the SSRF-safe fetcher.
 */
export class PoliteFetcher {
  private readonly gates = new Map<string, { active: number; waiting: (() => void)[] }>();
  private readonly robots = new Map<string, RobotsEntry>();
  /** Origins with a crawl_hosts row, and the next free slot last read for each (delay-0 requests). */
  private readonly hosts = new Map<string, { nextAt: number; readAt: number }>();

  constructor(
    private readonly db: DataSource,
    private readonly config: CrawlerConfig,
    private readonly allowHosts: string[],
  ) {}

  /** Runs `fn` when fewer than `hostConnections` requests of this process are talking to `origin` (default one). */
  private async exclusive<T>(origin: string, fn: () => Promise<T>): Promise<T> {
    let gate = this.gates.get(origin);
    if (!gate) this.gates.set(origin, (gate = { active: 0, waiting: [] }));
    if (gate.active >= this.config.hostConnections) await new Promise<void>((resolve) => gate!.waiting.push(resolve));
    else gate.active++;
    try {
      return await fn();
    } finally {
      const next = gate.waiting.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else if (--gate.active === 0) this.gates.delete(origin);
    }
  }

  /**
   * Reserves the origin's next request slot (shared by all workers) and waits for it. Without a
   * delay there is no slot to reserve: only a back-off another worker set (Retry-After) is waited
   * for, read from PostgreSQL at most once a second rather than on every request.
   */
  private async waitSlot(origin: string, delay: number): Promise<void> {
    let host = this.hosts.get(origin);
    if (!host) {
      await this.db.query('INSERT INTO crawl_hosts (origin) VALUES ($1) ON CONFLICT DO NOTHING', [origin]);
      this.hosts.set(origin, (host = { nextAt: 0, readAt: 0 }));
    }
    if (delay === 0) {
      if (Date.now() - host.readAt > HOST_REREAD_MS) {
        const rows: { at: number }[] = await this.db.query('SELECT (EXTRACT(EPOCH FROM next_at) * 1000)::float8 AS at FROM crawl_hosts WHERE origin = $1', [origin]);
        host.nextAt = rows[0]?.at ?? 0;
        host.readAt = Date.now();
      }
      await sleep(host.nextAt - Date.now());
      return;
    }
    const rows = returnedRows<{ wait_ms: number }>(await this.db.query(
      `WITH cur AS (SELECT next_at FROM crawl_hosts WHERE origin = $1 FOR UPDATE)
       UPDATE crawl_hosts h SET next_at = GREATEST(cur.next_at, now()) + make_interval(secs => $2)
       FROM cur WHERE h.origin = $1
       RETURNING GREATEST(0, EXTRACT(EPOCH FROM (GREATEST(cur.next_at, now()) - now())) * 1000)::float8 AS wait_ms`,
      [origin, delay],
    ));
    await sleep(rows[0]?.wait_ms ?? 0);
  }

  /** Pushes the origin's next slot back (a 429 or 503 with Retry-After), for every worker. */
  private async backOff(origin: string, seconds: number): Promise<void> {
    const host = this.hosts.get(origin);
    if (host) host.nextAt = Math.max(host.nextAt, Date.now() + seconds * 1000);
    await this.db.query(`UPDATE crawl_hosts SET next_at = GREATEST(next_at, now() + make_interval(secs => $2)) WHERE origin = $1`, [origin, seconds]);
  }

  /** The origin's robots.txt rules, with the exchange that fetched them (null when it failed) for the WARC. */
  async rules(origin: string, timeoutSeconds: number): Promise<RobotsEntry> {
    const cached = this.robots.get(origin);
    if (cached && Date.now() - cached.at < ROBOTS_TTL_MS) return cached;
    let entry: RobotsEntry;
    try {
      let res = await this.fetch(`${origin}/robots.txt`, { delay: 0, timeoutSeconds, maxBytes: 512 * 1024 });
      // RFC 9309 2.3.1.2: follow at least five redirects, across origins too (http -> https, apex -> www);
      // the rules found there are this origin's. Beyond five, or to no http(s) URL: unavailable (4xx), all allowed.
      for (let hops = 0; res.status >= 300 && res.status < 400 && res.status !== 304 && hops < ROBOTS_REDIRECTS; hops++) {
        const next = robotsRedirect(res);
        if (!next) break;
        res = await this.fetch(next, { delay: 0, timeoutSeconds, maxBytes: 512 * 1024 });
      }
      entry = { rules: robotsRules(origin, res.status >= 300 && res.status < 400 ? 404 : res.status, res.body.toString('utf8')), exchange: res, at: Date.now() };
      if (res.status >= 500) entry.unavailable = { code: 'robots_unavailable', message: `robots.txt answered HTTP ${res.status}: nothing is crawled on ${origin}` };
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      entry = { rules: robotsRules(origin, err.code === 'too_large' ? 404 : null, ''), exchange: null, at: Date.now() };
      // A refused address keeps its own reason: the origin is not allowed, whatever its robots.txt says.
      if (err.code !== 'too_large') entry.unavailable = REFUSALS.has(err.code) ? { code: err.code, message: err.message } : { code: 'robots_unavailable', message: `robots.txt unreachable (${err.code}: ${err.message}): nothing is crawled on ${origin}` };
    }
    this.robots.set(origin, entry);
    return entry;
  }

  /** GET with politeness and retries; any status is returned (redirects are not followed). */
  fetch(url: string, req: PoliteRequest): Promise<FetchedResource & { attempts: number }> {
    const origin = new URL(url).origin;
    return this.exclusive(origin, async () => {
      for (let attempt = 1; ; attempt++) {
        await this.waitSlot(origin, req.delay);
        if (req.cancelled?.()) throw new FetchCancelled();
        let res: FetchedResource | null = null;
        let failure: FetchError | null = null;
        try {
          res = await safeFetch(url, {
            timeoutMs: req.timeoutSeconds * 1000,
            maxBytes: req.maxBytes,
            allowHosts: this.allowHosts,
            userAgent: this.config.userAgent,
            headers: req.headers,
            followRedirects: false,
            returnAnyStatus: true,
          });
        } catch (err) {
          if (!(err instanceof FetchError)) throw err;
          failure = err;
        }
        // The delay counts from the end of this exchange too, not only from its start.
        if (req.delay > 0) await this.backOff(origin, req.delay);
        const retriable = failure ? RETRIED_ERRORS.has(failure.code) : RETRIED_STATUS.has(res!.status);
        if (!retriable || attempt > this.config.retries) {
          if (failure) throw failure;
          return { ...res!, attempts: attempt };
        }
        const asked = res ? retryAfterSeconds(res.headers?.['retry-after']) : undefined;
        const wait = Math.min(asked ?? 2 ** (attempt - 1), this.config.retryAfterCap);
        if (asked !== undefined) await this.backOff(origin, wait);
        await sleep(wait * 1000);
      }
    });
  }
}
