import type { JsonSchema } from '@filigrane/core';

/** JSON Schemas of the media requests, for the OpenAPI document (the Media object itself is core's). */
export const METADATA_SCHEMA: JsonSchema = {
  type: 'object',
  propertyNames: { pattern: '^user\\.' },
  additionalProperties: { anyOf: [{ type: 'string', maxLength: 255 }, { type: 'boolean' }, { type: 'null' }] },
};

export const REGISTRATION_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', description: 'http(s) URL or data: URI of a registration file (.lmk), an image or a video' },
    metadata: METADATA_SCHEMA,
  },
};

export const MEDIA_QUERY: Record<string, JsonSchema> = {
  hidden: { anyOf: [{ type: 'integer', enum: [0, 1] }, { type: 'boolean' }], default: 0, description: 'Show names starting with "." (folders)' },
  page: { type: 'integer', minimum: 1, description: 'Page of children (folders)' },
  page_size: { type: 'integer', minimum: 1, maximum: 100, description: 'Children per page (folders)' },
};
