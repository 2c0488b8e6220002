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
