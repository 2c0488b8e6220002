import { badRequest } from './errors.js';
import { queryString, type RouteContext } from './route.js';

export const MAX_PAGE_SIZE = 100;
/**
 * The largest row offset a page may start at (the int4 range): far beyond any collection, and an
 * exact number in JavaScript and in PostgreSQL's OFFSET, so a hostile page number never overflows.
 */
export const MAX_PAGE_OFFSET = 2_147_483_647;

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

function positiveInt(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || /^0+$/.test(raw)) throw badRequest('invalid_' + name, `${name} must be a positive integer.`);
  const digits = raw.replace(/^0+/, '');
  // Beyond 15 digits a number is not exact in JavaScript, and far past any bound of pageRequest:
  // it stands for "huge" (page_size capped, page past the largest offset), never a misleading 400.
  return digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits);
}

/**
 * A page of `pageSize` rows (capped at 100; default 100), numbered from 1. A page past the end of
 * the collection is an empty page; one whose offset would pass MAX_PAGE_OFFSET is a 400
 * `invalid_page` (REST and GraphQL alike).
 */
export function pageRequest(page = 1, pageSize = MAX_PAGE_SIZE): PageRequest {
  if (!Number.isSafeInteger(page) || page < 1) throw badRequest('invalid_page', 'page must be a positive integer.');
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw badRequest('invalid_page_size', 'page_size must be a positive integer.');
  const size = Math.min(pageSize, MAX_PAGE_SIZE);
  const lastPage = Math.floor(MAX_PAGE_OFFSET / size) + 1;
  if (page > lastPage) throw badRequest('invalid_page', `page must be at most ${lastPage} with page_size=${size}.`);
  return { page, pageSize: size, offset: (page - 1) * size };
}

/** `page` (1-based) and `page_size` (default and maximum 100) from the query string. */
export function parsePage(ctx: Pick<RouteContext, 'query'>): PageRequest {
  const pageSize = positiveInt(queryString(ctx.query, 'page_size'), 'page_size', MAX_PAGE_SIZE);
  const page = positiveInt(queryString(ctx.query, 'page'), 'page', 1);
  return pageRequest(page, pageSize);
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

/**
 * The type of each sort key a list's cursor holds: `timestamp` an ISO 8601 date-time PostgreSQL
 * can store, `id` a positive integer within bigint and exact in JavaScript, `text` a string.
 */
export type CursorKeyType = 'timestamp' | 'id' | 'text';

const ISO_INSTANT = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

function validKey(value: unknown, type: CursorKeyType): boolean {
  switch (type) {
    case 'timestamp':
      return typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value));
    case 'id':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
    default:
      return typeof value === 'string' && value.length <= 2048 && !value.includes('\u0000');
  }
}

/**
 * Reads a cursor the client sent back: anyone can forge one (it is base64 JSON), so every field is
 * checked against the list's key types; anything else is a 400 `invalid_cursor`.
 */
export function decodeCursor(raw: string | undefined, keyTypes: readonly CursorKeyType[]): Cursor | null {
  if (!raw) return null;
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    c = null;
  }
  const cursor = c as Partial<Cursor> | null;
  if (
    cursor !== null && typeof cursor === 'object' && !Array.isArray(cursor) &&
    (cursor.dir === 'n' || cursor.dir === 'p') &&
    Array.isArray(cursor.key) && cursor.key.length === keyTypes.length &&
    cursor.key.every((k, i) => validKey(k, keyTypes[i]!))
  ) {
    return { key: cursor.key, dir: cursor.dir };
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
