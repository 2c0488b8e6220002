import { validationError, type ErrorItem } from './errors.js';

/** The spec's rule for tag lists (matches, aggregation objects). */
export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 100;

/**
 * A change of a tag list that needs no read first: replace it, add some, remove some. Applied by
 * one UPDATE (tagEditSql), so two clients adding different tags at once both keep theirs.
 */
export interface TagEdit {
  /** Replaces the list (then `add` and `remove` apply to the new one). */
  set?: string[];
  add?: string[];
  remove?: string[];
}

const isTag = (t: unknown) => typeof t === 'string' && t.length > 0 && t.length <= MAX_TAG_LENGTH;

/** Checks each list of a tag edit (fields named as the client sent them); 400 `invalid` listing every bad one. */
export function parseTagEdit(fields: { set?: [string, unknown]; add?: [string, unknown]; remove?: [string, unknown] }): TagEdit {
  const errors: ErrorItem[] = [];
  const edit: TagEdit = {};
  for (const which of ['set', 'add', 'remove'] as const) {
    const entry = fields[which];
    if (!entry || entry[1] === undefined || entry[1] === null) continue;
    const [name, value] = entry;
    if (!Array.isArray(value) || value.length > MAX_TAGS || !value.every(isTag)) {
      errors.push({ field: name, code: 'invalid', details: `${name} is a list of at most ${MAX_TAGS} non-empty strings of at most ${MAX_TAG_LENGTH} characters.` });
      continue;
    }
    edit[which] = [...new Set(value as string[])];
  }
  if (errors.length) throw validationError(errors);
  return edit;
}

export const isEmptyTagEdit = (e: TagEdit) => e.set === undefined && !e.add?.length && !e.remove?.length;

/**
 * The SQL expression of `column` after the edit, order kept (existing tags first, new ones after),
 * without duplicates. `p` adds a parameter and answers its placeholder.
 */
export function tagEditSql(column: string, edit: TagEdit, p: (value: unknown) => string): string {
  const base = edit.set !== undefined ? `${p(edit.set)}::text[]` : column;
  return `ARRAY(SELECT t FROM unnest(${base} || ${p(edit.add ?? [])}::text[]) WITH ORDINALITY AS u(t, i)
    WHERE NOT (t = ANY(${p(edit.remove ?? [])}::text[])) GROUP BY t ORDER BY min(i))`;
}
