import { ERROR_BODY_SCHEMA, nullable, pageSchema, type JsonSchema } from '@filigrane/core';

/** JSON Schemas of the watermarking requests and responses (spec: Watermarking (v4), Watermarking result). */
const url = { type: 'string', format: 'uri' };
const dateTime = { type: 'string', format: 'date-time' };

export const WATERMARKING_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['original', 'watermarked', 'registration', 'expiry'],
  properties: { original: url, watermarked: url, registration: url, expiry: dateTime },
};

export const WATERMARKING_STATUS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'status', 'created', 'finished', 'expiry', 'result', 'error'],
  properties: {
    id: { type: 'string' },
    url,
    status: { type: 'string', enum: ['pending', 'running', 'complete', 'failed'] },
    created: dateTime,
    finished: nullable(dateTime),
    expiry: dateTime,
    result: nullable(WATERMARKING_RESULT_SCHEMA),
    error: nullable(ERROR_BODY_SCHEMA),
  },
};

export const WATERMARKING_PAGE_SCHEMA = pageSchema(WATERMARKING_STATUS_SCHEMA);

export const WATERMARKING_REQUEST_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', description: 'http(s) URL or data URI of the image' },
    sync: { type: 'boolean', default: true },
    timeout: { type: 'integer', minimum: 1, default: 120, description: 'Seconds to wait when sync' },
  },
};

export const WATERMARKING_QUERY: Record<string, JsonSchema> = {
  sync: { type: 'boolean', description: 'Binary bodies: sync mode (default true)' },
  timeout: { type: 'integer', minimum: 1, description: 'Binary bodies: seconds to wait when sync (default 120)' },
};
