import { validationError, type ErrorItem } from '@filigrane/core';

/** A PATCH body of a match (tags, export), shared by REST and GraphQL. */
export function parseMatchChange(body: unknown): { tags?: string[]; export?: boolean } {
  const b = (body ?? {}) as Record<string, unknown>;
  const errors: ErrorItem[] = [];
  for (const k of Object.keys(b)) if (k !== 'tags' && k !== 'export') errors.push({ field: k, code: 'read_only', details: `Only tags and export can be changed (got "${k}").` });
  if (b.tags !== undefined && !(Array.isArray(b.tags) && b.tags.every((t) => typeof t === 'string' && t.length > 0 && t.length <= 100) && b.tags.length <= 50)) {
    errors.push({ field: 'tags', code: 'invalid', details: 'tags is a list of at most 50 non-empty strings of at most 100 characters.' });
  }
  if (b.export !== undefined && typeof b.export !== 'boolean') errors.push({ field: 'export', code: 'invalid', details: 'export is a boolean.' });
  if (errors.length) throw validationError(errors);
  return { tags: b.tags ? [...new Set(b.tags as string[])] : undefined, export: b.export as boolean | undefined };
}
