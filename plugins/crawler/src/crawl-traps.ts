/**
 * Crawler traps: sites that generate links without end (a calendar's `?month=N+1`, session ids in
 * URLs, relative links that nest a path in itself: `/a/b/a/b/a/b/...`). Without these rules only
 * CRAWL_MAX_PAGES ended such a crawl (10,000 pages, about three hours at one request a second).
 * The rules are Heritrix's: a path may not repeat a run of segments three times in a row
 * (`PathologicalPathDecideRule`, maxRepetitions 2), nor have more than CRAWL_MAX_PATH_SEGMENTS
 * segments (`TooManyPathSegmentsDecideRule`, 20); session ids are removed by the canonical form
 * (crawl-url.ts, Heritrix's `StripSessionIDs`). Query strings without end are capped per path in
 * the frontier (CRAWL_MAX_QUERY_VARIANTS, crawl-writes.ts).
 */

/** A run of segments met this many times in a row makes a path a trap (`/a/a/a/`, `/a/b/a/b/a/b/`). */
export const PATH_REPETITIONS = 3;

/** Links of one page logged as traps; the others are dropped silently (a hostile page may hold thousands). */
export const TRAPS_LOGGED_PER_PAGE = 100;

/** Trap links a crawl remembers having logged (memory bound; beyond, a repeated one is logged again, harmlessly). */
export const MAX_TRAPS_REMEMBERED = 100_000;

/** Why a link's path makes it a crawler trap, or null. Pure: the link's shape alone. */
export function pathTrap(url: string, maxSegments: number): string | null {
  const segments = new URL(url).pathname.split('/').slice(1);
  // A trailing slash is no segment of its own (`/a/b/` has two).
  if (segments.length && segments[segments.length - 1] === '') segments.pop();
  if (segments.length > maxSegments) return `path of more than ${maxSegments} segments (CRAWL_MAX_PATH_SEGMENTS; crawler trap)`;
  const repeated = repeatedRun(segments);
  if (repeated) return `path repeats "${repeated}" ${PATH_REPETITIONS} times in a row (crawler trap)`;
  return null;
}

/** The first run of segments that appears PATH_REPETITIONS times in a row, joined with '/', or null. */
function repeatedRun(segments: string[]): string | null {
  const n = segments.length;
  for (let len = 1; len * PATH_REPETITIONS <= n; len++) {
    for (let start = 0; start + len * PATH_REPETITIONS <= n; start++) {
      let copies = 1;
      while (copies < PATH_REPETITIONS && sameRun(segments, start, start + copies * len, len)) copies++;
      if (copies === PATH_REPETITIONS) return segments.slice(start, start + len).join('/');
    }
  }
  return null;
}

function sameRun(segments: string[], a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (segments[a + i] !== segments[b + i]) return false;
  return true;
}

/** What query variants of a link count against: its URL without the query; null for a link without one. */
export function queryPath(url: string): string | null {
  const q = url.indexOf('?');
  return q < 0 ? null : url.slice(0, q);
}
