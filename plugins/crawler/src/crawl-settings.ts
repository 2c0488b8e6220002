import { defineSettings, setting, validationError, type ErrorItem } from '@filigrane/core';
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
  maxPathSegments: number;
  maxQueryVariants: number;
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

/** The crawler's environment settings, checked at boot and listed by `filigrane settings`. */
export const CRAWLER_SETTINGS = defineSettings('crawler', {
  maxPages: setting.integer({ env: 'CRAWL_MAX_PAGES', default: 10_000, min: 1, description: 'Pages fetched at most by one crawl' }),
  maxBytes: setting.integer({ env: 'CRAWL_MAX_BYTES', default: 2 * 1024 ** 3, min: 1, description: 'Bytes downloaded at most by one crawl' }),
  maxPageBytes: setting.integer({ env: 'CRAWL_MAX_PAGE_BYTES', default: 10 * 1024 ** 2, min: 1024, description: 'Largest page fetched (larger ones are logged and skipped)' }),
  maxImageBytes: setting.integer({ env: 'CRAWL_MAX_IMAGE_BYTES', default: 30 * 1024 ** 2, min: 1024, description: 'Largest image fetched' }),
  maxDepth: setting.integer({ env: 'CRAWL_MAX_DEPTH', default: 30, min: 0, description: 'Links followed at most from a start URL (ends endless calendars)' }),
  maxPathSegments: setting.integer({ env: 'CRAWL_MAX_PATH_SEGMENTS', default: 20, min: 1, max: 1000, description: 'Links whose path has more segments are not followed (crawler traps)' }),
  maxQueryVariants: setting.integer({
    env: 'CRAWL_MAX_QUERY_VARIANTS',
    default: 1000,
    min: 1,
    description: 'Distinct query strings followed per path in one session (`/cal?month=...`: ends endless calendars; raise it for larger `?id=N` catalogues)',
  }),
  concurrency: setting.integer({ env: 'CRAWL_CONCURRENCY', default: 4, min: 1, max: 256, description: 'Crawl loops per process and crawl' }),
  hostConnections: setting.integer({ env: 'CRAWL_HOST_CONNECTIONS', default: 1, min: 1, max: 64, description: 'Simultaneous connections to one site from one process' }),
  workersPerCrawl: setting.integer({ env: 'CRAWL_WORKERS_PER_CRAWL', default: 1, min: 1, max: 256, description: 'Worker jobs queued per crawl (processes sharing it)' }),
  crawlDelayCap: setting.number({ env: 'CRAWL_MAX_CRAWL_DELAY', default: 30, min: 0, description: 'Cap on a robots.txt Crawl-delay, in seconds' }),
  retries: setting.integer({ env: 'CRAWL_RETRIES', default: 2, min: 0, max: 10, description: 'Retries of a request answered 429/5xx or failed by the network' }),
  retryAfterCap: setting.number({ env: 'CRAWL_MAX_RETRY_AFTER', default: 60, min: 0, description: 'Cap on a Retry-After wait, in seconds' }),
  claimLease: setting.number({ env: 'CRAWL_CLAIM_LEASE', default: 120, min: 1, description: 'Seconds a worker holds a claimed page before another may take it' }),
  recrawlHours: setting.number({ env: 'CRAWL_RECRAWL_HOURS', default: 24, min: 0, description: 'Hours between the end of a crawl and the next scheduled one' }),
  minImageSide: setting.integer({ env: 'CRAWL_MIN_IMAGE_SIDE', default: 64, min: 1, description: 'Images with a shorter side are logged, not matched' }),
  offsiteImages: setting.boolean({ env: 'CRAWL_OFFSITE_IMAGES', default: false, description: 'Fetch images hosted on other sites than the crawled one' }),
  userAgent: setting.string({ env: 'CRAWL_USER_AGENT', default: 'Filigrane/0.1 (+https://github.com/filigrane/filigrane; media tracking crawler)', description: 'User-Agent of the crawler' }),
});

