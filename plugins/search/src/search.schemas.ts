import { IMAGE_OBJECT_SCHEMA, nullable, pageSchema, VIDEO_OBJECT_SCHEMA, VIDEO_TIME_FIELDS, type JsonSchema } from '@filigrane/core';

/** JSON Schemas of the search requests and responses (spec: Searches (v4), Search result). */

/** One match of a search: `user` (image or video of the account) or `text`; documents add their page. */
export const SEARCH_MATCH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'created', 'type'],
  properties: {
    id: nullable({ type: ['integer', 'string'] }),
    created: { type: 'string', format: 'date-time' },
    type: { type: 'string', enum: ['user', 'text'] },
    watermarked: { type: 'boolean' },
    image: IMAGE_OBJECT_SCHEMA,
    video: VIDEO_OBJECT_SCHEMA,
    query: { type: 'object', description: 'Text matches: the query echoed (filename, type as a list, sync, metadata)' },
    media: { type: 'object', properties: { metadata: { type: 'object' }, media_path: { type: 'string' }, media_url: { type: 'string', format: 'uri' } } },
    ...VIDEO_TIME_FIELDS,
  },
};

/** The synchronous answer: the spec's Search result. */
export const SEARCH_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'matches'],
  properties: { status: { const: 'complete' }, matches: { type: 'array', items: SEARCH_MATCH_SCHEMA } },
};

/** A stored (asynchronous) search, polled at its url; `matches` once complete, `error` once failed. */
export const SEARCH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'name', 'type', 'status', 'created', 'finished', 'query'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    name: nullable({ type: 'string' }),
    type: { type: 'string', enum: ['image', 'text', 'video', 'document'] },
    status: { type: 'string', enum: ['pending', 'running', 'complete', 'failed'] },
    created: { type: 'string', format: 'date-time' },
    finished: nullable({ type: 'string', format: 'date-time' }),
    query: { type: 'object' },
    matches: { type: 'array', items: SEARCH_MATCH_SCHEMA },
    error: {},
    progress: {},
  },
};

export const SEARCH_REQUEST_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    file: { type: 'string', description: 'Query image (JPEG, PNG, GIF, WebP or AVIF; the first frame of an animation), video or document: a URL or data URI (JSON), or the file part (multipart)' },
    name: { type: 'string' },
    sync: { type: 'boolean', description: 'Default true for images, false otherwise; synchronous searches are for images only' },
    search_path: { type: 'string' },
    mode: { type: 'string', enum: ['near_duplicate', 'similar', 'leaks'] },
    categories: { type: 'array', items: { type: 'string', enum: ['default', 'recent', 'archive', 'web'] } },
    transforms: { type: 'array', items: { type: 'string', enum: ['scale', 'affine', 'perspective'] } },
    filter_marked: { type: 'boolean' },
    metadata: { type: 'object' },
    type: { anyOf: [{ type: 'string', enum: ['image', 'video', 'folder'] }, { type: 'array', items: { type: 'string', enum: ['image', 'video', 'folder'] } }] },
    filename: { type: 'string' },
    filename__startswith: { type: 'string', minLength: 3 },
  },
};

export const SEARCH_PAGE_SCHEMA = pageSchema(SEARCH_SCHEMA);
