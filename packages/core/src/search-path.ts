import { forbidden, type ErrorItem } from './errors.js';

// The `search_path` of a search request, for every search executor (the search plugin's and those
// other plugins contribute to its SEARCH_EXECUTORS point, the press's document search).

/** The caller's home directory, what a search path must stay within. */
export interface HomeScope {
  home: string;
}

/**
 * The `search_path` of a search request: absolute (`/<home>/...`) or relative to the home
 * directory, trailing slashes ignored; the caller's home when absent. A malformed value is added to
 * `errors` (400); call `assertWithinHome` once the 400s are thrown (403).
 */
export function searchPathOf(body: Record<string, unknown>, scope: HomeScope, errors: ErrorItem[]): string {
  if (body.search_path === undefined || body.search_path === null) return scope.home;
  if (typeof body.search_path !== 'string' || body.search_path === '' || body.search_path.split('/').some((s) => s === '.' || s === '..')) {
    errors.push({ field: 'search_path', code: 'invalid', details: 'search_path must be a path inside your home directory.' });
    return scope.home;
  }
  const raw = body.search_path.replace(/\/+$/, '');
  return raw.startsWith('/') ? raw || '/' : `${scope.home}/${raw}`;
}

export function assertWithinHome(searchPath: string, scope: HomeScope): void {
  if (searchPath !== scope.home && !searchPath.startsWith(`${scope.home}/`)) throw forbidden('search_path must be inside your home directory.');
}
