import { validationError, type AppConfig, type ErrorItem } from '@filigrane/core';
import { canonicalUrl, siteOf } from './crawl-url.js';

/** Bounds of the per-session numbers, all in seconds (see docs/api-decisions.md). */
export const BOUNDS = {
  crawl_delay: { min: 10, max: 7 * 86_400, default: 3_600 },
  download_delay: { min: 0, max: 60, default: 1 },
  download_timeout: { min: 1, max: 300, default: 30 },
} as const;
export const MAX_START_URLS = 100;

export interface NewSession {
  url: string;
  site: string;
  startUrls: string[];
  search: boolean;
  crawlDelay: number;
  downloadDelay: number;
  downloadTimeout: number;
}

/** POST /crawling/sessions/ body: every invalid field is reported at once, per field. */
export function parseNewSession(body: unknown): NewSession {
  const errors: ErrorItem[] = [];
  const fail = (field: string, code: string, details: string) => errors.push({ field, code, details });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError([{ code: 'invalid', details: 'The body must be a JSON object.' }]);
  }
  const b = body as Record<string, unknown>;
  let url: string | null = null;
  if (b.url === undefined || b.url === null || b.url === '') fail('url', 'required', 'This field is required.');
  else if (typeof b.url !== 'string') fail('url', 'invalid', 'Must be a string.');
  else if (!(url = canonicalUrl(b.url))) fail('url', 'invalid', 'Enter a valid http or https URL.');
  const site = url ? siteOf(new URL(url).hostname) : null;

  let startUrls: string[] = url ? [url] : [];
  if (b.start_urls !== undefined && b.start_urls !== null) {
    if (!Array.isArray(b.start_urls) || b.start_urls.length === 0) fail('start_urls', 'invalid', 'Must be a non-empty list of URLs.');
    else if (b.start_urls.length > MAX_START_URLS) fail('start_urls', 'invalid', `At most ${MAX_START_URLS} URLs.`);
    else {
      const list: string[] = [];
      for (const [i, raw] of b.start_urls.entries()) {
        const u = typeof raw === 'string' ? canonicalUrl(raw) : null;
        if (!u) fail('start_urls', 'invalid', `Item ${i} is not a valid http or https URL.`);
        else if (site && siteOf(new URL(u).hostname) !== site) fail('start_urls', 'invalid', `Item ${i} is not on the site ${site}.`);
        else if (!list.includes(u)) list.push(u);
      }
      startUrls = list;
    }
  }

  let search = true;
  if (b.search !== undefined && b.search !== null) {
    if (typeof b.search !== 'boolean') fail('search', 'invalid', 'Must be a boolean.');
    else search = b.search;
  }
  const num = (field: keyof typeof BOUNDS): number => {
    const { min, max, default: fallback } = BOUNDS[field];
    const v = b[field];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      fail(field, 'invalid', 'Must be a number of seconds.');
      return fallback;
    }
    if (v < min || v > max) fail(field, 'out_of_range', `Must be between ${min} and ${max} seconds.`);
    return v;
  };
  const crawlDelay = num('crawl_delay');
  const downloadDelay = num('download_delay');
  const downloadTimeout = num('download_timeout');
  if (errors.length) throw validationError(errors);
  return { url: url!, site: site!, startUrls, search, crawlDelay, downloadDelay, downloadTimeout };
}

/** Operator settings (environment), with their defaults; listed in README's configuration table. */
export interface CrawlerConfig {
  maxPages: number;
  maxBytes: number;
  maxPageBytes: number;
  maxImageBytes: number;
  maxDepth: number;
  concurrency: number;
  hostConnections: number;
  workersPerCrawl: number;
  crawlDelayCap: number;
  retries: number;
  retryAfterCap: number;
  claimLease: number;
  recrawlHours: number;
  minImageSide: number;
  offsiteImages: boolean;
  userAgent: string;
}

export function crawlerConfig(config: AppConfig): CrawlerConfig {
  const env = config.extra;
  const n = (name: string, fallback: number) => {
    const v = Number(env[name]);
    return env[name] !== undefined && env[name] !== '' && Number.isFinite(v) && v >= 0 ? v : fallback;
  };
  return {
    maxPages: n('CRAWL_MAX_PAGES', 10_000),
    maxBytes: n('CRAWL_MAX_BYTES', 2 * 1024 ** 3),
    maxPageBytes: n('CRAWL_MAX_PAGE_BYTES', 10 * 1024 ** 2),
    maxImageBytes: n('CRAWL_MAX_IMAGE_BYTES', 30 * 1024 ** 2),
    maxDepth: n('CRAWL_MAX_DEPTH', 30),
    concurrency: Math.max(1, n('CRAWL_CONCURRENCY', 4)),
    hostConnections: Math.max(1, n('CRAWL_HOST_CONNECTIONS', 1)),
    workersPerCrawl: Math.max(1, n('CRAWL_WORKERS_PER_CRAWL', 1)),
    crawlDelayCap: n('CRAWL_MAX_CRAWL_DELAY', 30),
    retries: n('CRAWL_RETRIES', 2),
    retryAfterCap: n('CRAWL_MAX_RETRY_AFTER', 60),
    claimLease: n('CRAWL_CLAIM_LEASE', 120),
    recrawlHours: n('CRAWL_RECRAWL_HOURS', 24),
    minImageSide: n('CRAWL_MIN_IMAGE_SIDE', 64),
    offsiteImages: env.CRAWL_OFFSITE_IMAGES === 'true',
    userAgent: env.CRAWL_USER_AGENT ?? 'Filigrane/0.1 (+https://github.com/filigrane/filigrane; media tracking crawler)',
  };
}
