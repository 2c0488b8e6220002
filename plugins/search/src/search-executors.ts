import { createExtensionPoint, labelError, type ErrorItem } from '@filigrane/core';
// Executors parse `search_path` with core's helpers (searchPathOf, assertWithinHome), shared with other plugins' executors.
export { assertWithinHome, searchPathOf } from '@filigrane/core';

/** Longest search name, as for other names (media, applications). */
export const MAX_SEARCH_NAME = 255;

/**
 * The search's `name`: the one given, else the uploaded file's name; a one-line label either way
 * (at most 255 characters, no control or invisible formatting characters). Problems go to `errors`.
 */
export function searchNameOf(body: Record<string, unknown>, filename: string | null, errors: ErrorItem[]): string | null {
  const name = body.name === undefined || body.name === null ? filename : body.name;
  if (name === null) return null;
  if (typeof name !== 'string') errors.push({ field: 'name', code: 'invalid', details: 'name must be a string.' });
  else if (name.length > MAX_SEARCH_NAME) errors.push({ field: 'name', code: 'max_length', details: `name has at most ${MAX_SEARCH_NAME} characters${body.name == null ? ' (the uploaded file\'s name is the name when none is given)' : ''}.` });
  else {
    const bad = labelError('name', name);
    if (bad) errors.push(body.name == null ? { ...bad, details: `${bad.details} (the uploaded file's name is the name when none is given)` } : bad);
    else return name;
  }
  return null;
}

/** Whom a search runs for: the account and the home directory it may see. */
export interface SearchScope {
  accountId: number;
  home: string;
  baseUrl: string;
}

/**
 * A kind of search (text, image, ...). `parse` validates the request synchronously (400s come
 * back at once, even for asynchronous searches); `run` does the work and returns the matches.
 */
export interface SearchExecutor<Q = unknown> {
  kind: string;
  /**
   * Executors are asked in decreasing priority (default 0): a specific one (documents, which
   * also come as `file`) goes before a general one (images).
   */
  priority?: number;
  /** True when this executor handles the request body. */
  accepts(body: Record<string, unknown>): boolean;
  parse(body: Record<string, unknown>, scope: SearchScope): Promise<{ query: Q; sync: boolean; name: string | null }>;
  run(query: Q, scope: SearchScope): Promise<unknown[]>;
  /** The stored query for display, without heavy fields (images). */
  describe(query: Q): Record<string, unknown>;
}

export const SEARCH_EXECUTORS = createExtensionPoint<SearchExecutor>('search.executors');
