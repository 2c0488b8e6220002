import { createExtensionPoint } from '@filigrane/core';
// Executors parse `search_path` with core's helpers (searchPathOf, assertWithinHome), shared with other plugins' executors.
export { assertWithinHome, searchPathOf } from '@filigrane/core';

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
