import { createExtensionPoint, forbidden, type ErrorItem } from '@filigrane/core';

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

/**
 * The `search_path` of a search request: absolute (`/<home>/...`) or relative to the home
 * directory, trailing slashes ignored; the caller's home when absent. A malformed value is added to
 * `errors` (400); call `assertWithinHome` once the 400s are thrown (403).
 */
export function searchPathOf(body: Record<string, unknown>, scope: SearchScope, errors: ErrorItem[]): string {
  if (body.search_path === undefined || body.search_path === null) return scope.home;
  if (typeof body.search_path !== 'string' || body.search_path === '' || body.search_path.split('/').some((s) => s === '.' || s === '..')) {
    errors.push({ field: 'search_path', code: 'invalid', details: 'search_path must be a path inside your home directory.' });
    return scope.home;
  }
  const raw = body.search_path.replace(/\/+$/, '');
  return raw.startsWith('/') ? raw || '/' : `${scope.home}/${raw}`;
}

export function assertWithinHome(searchPath: string, scope: SearchScope): void {
  if (searchPath !== scope.home && !searchPath.startsWith(`${scope.home}/`)) throw forbidden('search_path must be inside your home directory.');
}
