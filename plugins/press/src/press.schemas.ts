import { nullable, pageSchema, type JsonSchema } from '@filigrane/core';

/** JSON Schemas of the press issue responses (our extension: docs/press.md). */
const dateTime = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };

export const PRESS_ISSUE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'name', 'date', 'status', 'pages', 'created'],
  properties: {
    id: { type: 'integer' },
    url: { type: 'string', format: 'uri' },
    name: { type: 'string' },
    date: { type: 'string', format: 'date' },
    domain: nullable({ type: 'string' }),
    origin: { type: 'string' },
    filename: nullable({ type: 'string' }),
    source_url: nullable({ type: 'string' }),
    size: count,
    sha256: nullable({ type: 'string' }),
    status: { type: 'string' },
    pages: { type: 'object', required: ['done', 'total'], properties: { done: count, total: nullable(count) } },
    images_found: count,
    matches_found: count,
    credits_found: count,
    error: {},
    created: dateTime,
    started: nullable(dateTime),
    finished: nullable(dateTime),
  },
};

export const PRESS_ISSUE_PAGE_SCHEMA = pageSchema(PRESS_ISSUE_SCHEMA);

export const PRESS_PAGE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['issue', 'page_number'],
  properties: {
    issue: { type: 'object', properties: { id: { type: 'integer' }, url: { type: 'string', format: 'uri' }, name: { type: 'string' }, date: { type: 'string' } } },
    page_number: { type: 'integer', minimum: 1 },
  },
};
