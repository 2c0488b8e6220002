import { nullable, pageSchema, type JsonSchema } from '@filigrane/core';

/** JSON Schemas of the aggregation responses: the spec's common fields and ours (docs/api-decisions.md). */
const dateTime = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };

export const AGGREGATION_OBJECT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['_id', '_version', 'group', 'type', 'created', 'updated', 'export', 'deleted', 'tags'],
  properties: {
    _id: { type: 'string' },
    _version: { type: 'integer', minimum: 0 },
    group: { type: 'integer' },
    type: { type: 'integer', enum: [0, 1, 2, 3, 4], description: '0 unknown, 1 by video, 2 by image, 3 by crawler, 4 by site' },
    created: dateTime,
    updated: dateTime,
    export: { type: 'boolean' },
    deleted: { const: false },
    tags: { type: 'array', items: { type: 'string' } },
    url: { type: 'string', format: 'uri' },
    path: nullable({ type: 'string' }),
    media: nullable({ type: 'object', properties: { id: { type: 'string' }, type: { type: 'string' }, url: { type: 'string' }, thumbnail: nullable({ type: 'string' }) } }),
    site: nullable({ type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, domain: { type: 'string' }, suffix: nullable({ type: 'string' }), country: nullable({ type: 'string' }) } }),
    page_url: nullable({ type: 'string' }),
    match_count: count,
    watermarked_count: count,
    web_count: count,
    press_count: count,
    credit_count: count,
    video_count: count,
    first_seen: nullable(dateTime),
    last_seen: nullable(dateTime),
    sessions: { type: 'array', items: { type: 'integer' } },
    matches: { type: 'string', format: 'uri', description: 'The v4 matches of this group' },
  },
};

export const AGGREGATION_PAGE_SCHEMA = pageSchema(AGGREGATION_OBJECT_SCHEMA);

export const AGGREGATION_LIST_SCHEMA: JsonSchema = {
  type: 'array',
  items: { type: 'object', required: ['url', 'name'], properties: { url: { type: 'string', format: 'uri' }, name: { type: 'string' } } },
};

export const AGGREGATION_PATCH_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { export: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } },
};

export const FIELD_PUT_SCHEMA: JsonSchema = { type: 'object', required: ['content'], properties: { content: { description: 'The new value of the field' } } };
