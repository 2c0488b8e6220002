import { ApiError, notFound, validationError, type ErrorItem } from '@filigrane/core';
import type { AggregationChange } from './aggregation-query.service.js';

/** Field access (`.../<_id>/<field>/`): dotted paths into the object, list items by index (tags.0). */
export function readField(view: Record<string, unknown>, path: string): unknown {
  let value: unknown = view;
  for (const segment of path.split('.')) {
    if (Array.isArray(value) && /^\d{1,6}$/.test(segment) && Number(segment) < value.length) value = value[Number(segment)];
    else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, segment)) value = (value as Record<string, unknown>)[segment];
    else throw notFound(`The object has no field "${path}".`);
  }
  return value;
}

const TAGS_RULE = 'tags is a list of at most 50 non-empty strings of at most 100 characters.';
const isTag = (t: unknown): t is string => typeof t === 'string' && t.length > 0 && t.length <= 100;

function checkTags(tags: unknown, field = 'tags'): string[] {
  if (!(Array.isArray(tags) && tags.length <= 50 && tags.every(isTag))) throw validationError([{ field, code: 'invalid', details: TAGS_RULE }]);
  return [...new Set(tags)];
}

function checkExport(value: unknown, field = 'export'): boolean {
  if (typeof value !== 'boolean') throw validationError([{ field, code: 'invalid', details: 'export is a boolean.' }]);
  return value;
}

/** PATCH body: export and/or tags; every other field is computed and read-only. */
export function parsePatch(body: unknown): AggregationChange {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError([{ code: 'invalid', details: 'A JSON object with export and/or tags is required.' }]);
  const b = body as Record<string, unknown>;
  const errors: ErrorItem[] = [];
  for (const k of Object.keys(b)) if (k !== 'tags' && k !== 'export') errors.push({ field: k, code: 'read_only', details: `Only export and tags can be changed (got "${k}").` });
  if (errors.length) throw validationError(errors);
  return { export: b.export === undefined ? undefined : checkExport(b.export), tags: b.tags === undefined ? undefined : checkTags(b.tags) };
}

const readOnly = (field: string) => validationError([{ field, code: 'read_only', details: `"${field}" is computed from the matches; only export, tags and tags.<index> can be changed.` }]);

/** Where a field edit lands: the whole export flag, the whole tag list, or one tag. */
function target(field: string, tags: string[]): { kind: 'export' } | { kind: 'tags' } | { kind: 'tag'; index: number } {
  if (field === 'export') return { kind: 'export' };
  if (field === 'tags') return { kind: 'tags' };
  const item = /^tags\.(\d{1,6})$/.exec(field);
  if (item) return { kind: 'tag', index: Number(item[1]) };
  throw readOnly(field);
}

/**
 * PUT {content}: replaces export, the tag list, or one tag (tags.<n>; n = the list's length
 * appends). A missing index is 404.
 */
export function putField(field: string, body: unknown, current: { tags: string[] }): AggregationChange {
  const t = target(field, current.tags);
  if (body === null || typeof body !== 'object' || !Object.hasOwn(body, 'content')) {
    throw validationError([{ field: 'content', code: 'required', details: 'The body is {"content": <the new value>}.' }]);
  }
  const content = (body as { content: unknown }).content;
  const extra = Object.keys(body).filter((k) => k !== 'content');
  if (extra.length) throw new ApiError(400, 'unknown_field', { [extra[0]!]: ['Only content is accepted.'] });
  if (t.kind === 'export') return { export: checkExport(content, 'content') };
  if (t.kind === 'tags') return { tags: checkTags(content, 'content') };
  if (t.index > current.tags.length) throw notFound(`tags has no item ${t.index} (it has ${current.tags.length}).`);
  const tags = [...current.tags];
  tags[t.index] = content as string;
  return { tags: checkTags(tags, 'content') };
}

/** DELETE: export back to its default (true), the tag list emptied, or one tag removed. */
export function deleteField(field: string, current: { tags: string[] }): AggregationChange {
  const t = target(field, current.tags);
  if (t.kind === 'export') return { export: true };
  if (t.kind === 'tags') return { tags: [] };
  if (t.index >= current.tags.length) throw notFound(`tags has no item ${t.index} (it has ${current.tags.length}).`);
  return { tags: current.tags.filter((_, i) => i !== t.index) };
}
