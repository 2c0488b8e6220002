import { badRequest } from './errors.js';
import { queryString, type RouteContext } from './route.js';

export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

function positiveInt(raw: string | undefined, name: string, fallback: number, max?: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw badRequest('invalid_' + name, `${name} must be a positive integer.`);
  }
  const n = Number(raw);
  return max !== undefined ? Math.min(n, max) : n;
}

/** `page` (1-based) and `page_size` (default and maximum 100) from the query string. */
export function parsePage(ctx: Pick<RouteContext, 'query'>): PageRequest {
  const pageSize = positiveInt(queryString(ctx.query, 'page_size'), 'page_size', MAX_PAGE_SIZE, MAX_PAGE_SIZE);
  const page = positiveInt(queryString(ctx.query, 'page'), 'page', 1);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The request's own URL with some query parameters replaced (or removed with null). */
export function linkWith(ctx: Pick<RouteContext, 'url'>, changes: Record<string, string | null>): string {
  const url = new URL(ctx.url.toString());
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  return url.toString();
}

export interface PageEnvelope<T> {
  count?: number;
  next: string | null;
  previous: string | null;
  [list: string]: T[] | string | number | null | undefined;
}

/**
 * The spec's page envelope: next/previous are absolute URLs that keep every filter in use.
 * `withCount` is false for the collections the spec lists without a count.
 */
export function pageEnvelope<T>(
  ctx: Pick<RouteContext, 'url'>,
  page: PageRequest,
  total: number,
  items: T[],
  // hasNext: when the route knows it better than the total (a fetched extra row, an estimated count).
  options: { withCount?: boolean; listName?: string; hasNext?: boolean } = {},
): PageEnvelope<T> {
  const hasNext = options.hasNext ?? page.offset + items.length < total;
  const envelope: PageEnvelope<T> = {
    next: hasNext ? linkWith(ctx, { page: String(page.page + 1) }) : null,
    previous: page.page > 1 ? linkWith(ctx, { page: page.page === 2 ? null : String(page.page - 1) }) : null,
  };
  if (options.withCount !== false) envelope.count = total;
  envelope[options.listName ?? 'results'] = items;
  return envelope;
}

/** Opaque cursor for keyset pagination (match endpoints): position plus direction. */
export interface Cursor {
  /** Sort key values of the boundary row. */
  key: (string | number)[];
  /** 'n' continues after the key, 'p' goes back before it. */
  dir: 'n' | 'p';
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if ((c.dir === 'n' || c.dir === 'p') && Array.isArray(c.key) && c.key.every((k) => ['string', 'number'].includes(typeof k))) {
      return c;
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest('invalid_cursor', 'The cursor is not valid.');
}

/** A page of a list route: parse page/page_size, fetch that slice and its total, wrap it in the envelope. */
export async function listPage<R, V>(
  ctx: Pick<RouteContext, 'url' | 'query'>,
  fetch: (offset: number, limit: number) => Promise<[R[], number]>,
  view: (row: R) => V,
  options: { withCount?: boolean; listName?: string } = {},
): Promise<PageEnvelope<V>> {
  const page = parsePage(ctx);
  const [rows, total] = await fetch(page.offset, page.pageSize);
  return pageEnvelope(ctx, page, total, rows.map(view), options);
}
