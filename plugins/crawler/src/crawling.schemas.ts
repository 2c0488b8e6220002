import { nullable, pageSchema, type JsonSchema } from '@filigrane/core';
import { BOUNDS, MAX_START_URLS } from './crawl-settings.js';

/** JSON Schemas of the crawling requests and responses (spec: Crawling session, Crawling batch). */
const url = { type: 'string', format: 'uri' };
const dateTime = { type: 'string', format: 'date-time' };
const seconds = (b: { min: number; max: number; default: number }, description: string): JsonSchema => ({ type: 'number', minimum: b.min, maximum: b.max, default: b.default, description });

export const SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url', 'id', 'ctime', 'mtime', 'stime', 'state', 'cycle_count', 'crawl_delay', 'search', 'download_delay', 'download_timeout', 'start_urls', 'batches'],
  properties: {
    url,
    id: { type: 'integer' },
    ctime: dateTime,
    mtime: dateTime,
    stime: nullable(dateTime),
    state: { type: 'string', enum: ['pending', 'running', 'failed', 'done', 'paused'] },
    cycle_count: { type: 'integer', minimum: 0 },
    crawl_delay: { type: 'number', description: 'Longest duration of each crawl, in seconds' },
    search: { type: 'boolean' },
    download_delay: { type: 'number', description: 'Seconds between two requests to one host' },
    download_timeout: { type: 'number', description: 'Seconds before a request is abandoned' },
    start_urls: { type: 'array', items: { type: 'string' } },
    batches: url,
    site: { type: 'string', description: 'The site crawled (registrable domain, or the host when it has none)' },
    reason: nullable({ type: 'string' }),
    next_crawl: nullable(dateTime),
    limits: { type: 'object' },
    progress: { type: 'object' },
  },
};

const count = { type: 'integer', minimum: 0 };
const log = nullable(url);
export const BATCH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url', 'id', 'ctime', 'session', 'crawl_cycle', 'images', 'videos', 'documents', 'pages'],
  properties: {
    url,
    id: { type: 'integer' },
    ctime: dateTime,
    session: url,
    crawl_cycle: { type: 'integer', minimum: 0 },
    images: { type: 'object', required: ['count'], properties: { count, log, tar: log } },
    videos: { type: 'object', required: ['count'], properties: { count, log } },
    documents: { type: 'object', required: ['count'], properties: { count, log } },
    pages: { type: 'object', required: ['count'], properties: { count, log, warc: log } },
  },
};

export const NEW_SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', description: 'Start URL (http or https); its site is the one crawled' },
    start_urls: { type: 'array', minItems: 1, maxItems: MAX_START_URLS, items: { type: 'string' } },
    search: { type: 'boolean', default: true },
    crawl_delay: seconds(BOUNDS.crawl_delay, 'Longest duration of each crawl (seconds)'),
    download_delay: seconds(BOUNDS.download_delay, 'Seconds between two requests to one host'),
    download_timeout: seconds(BOUNDS.download_timeout, 'Seconds before a request is abandoned'),
  },
};

const date = { type: 'string', description: 'A date or a date-time' };
export const CTIME_QUERY: Record<string, JsonSchema> = {
  ctime: { ...date, description: 'Exactly this date or date-time (not combinable with the others)' },
  ctime_lt: date,
  ctime_lte: date,
  ctime_gt: date,
  ctime_gte: date,
  page: { type: 'integer', minimum: 1 },
  page_size: { type: 'integer', minimum: 1, maximum: 100 },
};

export const SESSION_PAGE_SCHEMA = pageSchema(SESSION_SCHEMA, { withCount: false });
export const BATCH_PAGE_SCHEMA = pageSchema(BATCH_SCHEMA, { withCount: false });
