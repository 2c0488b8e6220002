import type { JsonSchema } from './route.js';

/** JSON Schemas of the shapes every route shares, for route specs and the OpenAPI document. */

/** The spec's error body (`status_code`, `code`, `details`, `errors`). */
export const ERROR_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status_code', 'details'],
  properties: {
    status_code: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string' },
    details: { description: 'A human-readable message or nested details' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'string' }, details: {} } },
    },
  },
};

/** The page envelope of a list route (`count`, `next`, `previous`, `results` or another list name). */
export function pageSchema(item: JsonSchema, options: { withCount?: boolean; listName?: string } = {}): JsonSchema {
  const list = options.listName ?? 'results';
  const withCount = options.withCount !== false;
  return {
    type: 'object',
    required: [...(withCount ? ['count'] : []), 'next', 'previous', list],
    properties: {
      ...(withCount ? { count: { type: 'integer', minimum: 0 } } : {}),
      next: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
      previous: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
      [list]: { type: 'array', items: item },
    },
  };
}

/** `schema` or null. */
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

const url: JsonSchema = { type: 'string', format: 'uri' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const text: JsonSchema = { type: 'string' };

// The spec's resource objects that several plugins answer with (media, matches, searches).

/** The spec's Image object: `registered` adds media_path/media_url (and metadata in match results), `web` the sighting. */
export const IMAGE_OBJECT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url', 'type', 'width', 'height', 'format'],
  properties: {
    url: nullable(url),
    type: { type: 'string', enum: ['registered', 'web', 'press'] },
    width: nullable({ type: 'integer', minimum: 0 }),
    height: nullable({ type: 'integer', minimum: 0 }),
    format: nullable(text),
    thumbnail: nullable(url),
    credit: nullable(text),
    media_path: text,
    media_url: url,
    metadata: { type: 'object' },
    crawl_date: nullable(dateTime),
    page_url: nullable(text),
    md5: nullable({ type: 'string', pattern: '^[0-9a-f]{32}$' }),
    last_modified_date: nullable(dateTime),
  },
};

/** The spec's Video object (`registered`: similarity tracking; streaming_url when one is made). */
export const VIDEO_OBJECT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: {
    url: nullable(url),
    type: { type: 'string', enum: ['registered', 'watermarked'] },
    width: nullable({ type: 'integer', minimum: 0 }),
    height: nullable({ type: 'integer', minimum: 0 }),
    thumbnail: nullable(url),
    duration: nullable({ type: 'number', minimum: 0 }),
    format: nullable(text),
    streaming_url: nullable(url),
  },
};

const MEDIA_FIELDS: Record<string, JsonSchema> = {
  url,
  path: { type: 'string', pattern: '^/' },
  created: dateTime,
  disk_usage: { type: 'integer', minimum: 0 },
  type: { type: 'string', enum: ['folder', 'image', 'video', 'document'] },
  thumbnail: nullable(url),
  metadata: { type: 'object', description: 'Metadata object: `user.*` keys, string (<= 255), boolean or null values' },
  image: IMAGE_OBJECT_SCHEMA,
  video: VIDEO_OBJECT_SCHEMA,
  exclusive: { type: 'boolean' },
  children_count: { type: 'integer', minimum: 0 },
  subfolders_count: { type: 'integer', minimum: 0 },
  media_count: { type: 'integer', minimum: 0 },
  next: nullable(url),
  previous: nullable(url),
};
const MEDIA_REQUIRED = ['url', 'path', 'created', 'disk_usage', 'type', 'thumbnail', 'metadata'];

/** The spec's Media object; a folder answers its children (one level, paginated). */
export const MEDIA_OBJECT_SCHEMA: JsonSchema = {
  type: 'object',
  required: MEDIA_REQUIRED,
  properties: { ...MEDIA_FIELDS, children: { type: 'array', items: { type: 'object', required: MEDIA_REQUIRED, properties: MEDIA_FIELDS } } },
};

/** v4 match `site`. */
export const SITE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'domain', 'suffix', 'country'],
  properties: {
    id: { type: 'integer' },
    name: text,
    domain: text,
    suffix: nullable(text),
    country: nullable({ type: 'string', pattern: '^[A-Z]{2}$' }),
  },
};

/** v4 match `page`. */
export const PAGE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url', 'type', 'image'],
  properties: {
    url: nullable(text),
    type: nullable(text),
    image: { type: 'object', properties: { url: nullable(text) } },
    headline: nullable(text),
    description: nullable(text),
    author: nullable(text),
    date_modified: nullable(text),
    date_published: nullable(text),
  },
};

const seconds: JsonSchema = { type: 'number', minimum: 0 };
/** Where a video copy lies in the query video and in the registered one (web matches, search results). */
export const VIDEO_TIME_FIELDS: Record<string, JsonSchema> = {
  query_video_start_time: seconds,
  query_video_end_time: seconds,
  query_video_match_duration: seconds,
  matched_video_start_time: seconds,
  matched_video_end_time: seconds,
  matched_video_match_duration: seconds,
};
