import { IMAGE_OBJECT_SCHEMA, MEDIA_OBJECT_SCHEMA, nullable, pageSchema, PAGE_SCHEMA, SITE_SCHEMA, VIDEO_OBJECT_SCHEMA, VIDEO_TIME_FIELDS, type JsonSchema } from '@filigrane/core';

/** JSON Schemas of the match responses (spec: Web, Press and Credit match (v3), Match (v4)). */
const common = {
  id: { type: 'integer' },
  url: { type: 'string', format: 'uri' },
  created: { type: 'string', format: 'date-time' },
};

export const WEB_MATCH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'created', 'type', 'watermarked', 'query_url', 'query_width', 'query_height', 'query_page_url', 'paths', 'session_id', 'domain'],
  properties: {
    ...common,
    type: { const: 'web' },
    watermarked: { type: 'boolean' },
    exclusive: { type: 'boolean' },
    query_url: nullable({ type: 'string' }),
    query_width: nullable({ type: 'integer' }),
    query_height: nullable({ type: 'integer' }),
    query_page_url: nullable({ type: 'string' }),
    paths: { type: 'array', items: MEDIA_OBJECT_SCHEMA },
    session_id: nullable({ type: 'integer' }),
    domain: nullable({ type: 'string' }),
    query_format: nullable({ type: 'string' }),
    image: nullable(IMAGE_OBJECT_SCHEMA),
    video: VIDEO_OBJECT_SCHEMA,
    ...VIDEO_TIME_FIELDS,
  },
};

export const PRESS_MATCH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'created', 'type', 'watermarked', 'issue', 'page_number', 'paths', 'image'],
  properties: {
    ...common,
    type: { const: 'press' },
    watermarked: { type: 'boolean' },
    issue: { type: 'object', required: ['name', 'date'], properties: { name: nullable({ type: 'string' }), date: nullable({ type: 'string', format: 'date' }) } },
    page_number: nullable({ type: 'integer', minimum: 1 }),
    paths: { type: 'array', items: MEDIA_OBJECT_SCHEMA },
    image: nullable(IMAGE_OBJECT_SCHEMA),
  },
};

export const CREDIT_MATCH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'created', 'type', 'credit', 'image_url', 'page_url', 'image'],
  properties: {
    ...common,
    type: { const: 'credit' },
    credit: nullable({ type: 'string' }),
    image_url: nullable({ type: 'string' }),
    page_url: nullable({ type: 'string' }),
    image: nullable(IMAGE_OBJECT_SCHEMA),
  },
};

export const V3_MATCH_SCHEMAS = { web: WEB_MATCH_SCHEMA, press: PRESS_MATCH_SCHEMA, credit: CREDIT_MATCH_SCHEMA } as const;

export const MATCH_V4_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'date_created', 'date_updated', 'export', 'watermarked', 'tags', 'sessions', 'media', 'site', 'page'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    date_created: { type: 'string', format: 'date-time' },
    date_updated: { type: 'string', format: 'date-time' },
    export: { type: 'boolean' },
    watermarked: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    sessions: { type: 'array', items: { type: 'integer' } },
    payload: { type: 'string' },
    media: nullable({
      type: 'object',
      required: ['id', 'type', 'path'],
      properties: {
        id: { type: 'string' },
        type: { type: 'string', enum: ['image', 'video', 'other'] },
        thumbnail: nullable({ type: 'string', format: 'uri' }),
        image: nullable({ type: 'string', format: 'uri' }),
        path: { type: 'string' },
        date_registered: { type: 'string', format: 'date-time' },
        credit: nullable({ type: 'string' }),
        user_metadata: { type: 'object' },
      },
    }),
    site: nullable(SITE_SCHEMA),
    page: PAGE_SCHEMA,
  },
};

