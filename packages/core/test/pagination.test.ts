import test from 'ava';
import { ApiError, decodeCursor, encodeCursor, pageEnvelope, parsePage } from '../src/index.js';

const ctx = (q: string) => {
  const url = new URL(`http://127.0.0.1:8080/api/v4/things/?${q}`);
  return { url, query: Object.fromEntries(url.searchParams) };
};

test('page_size defaults to 100 and is capped at 100', (t) => {
  t.deepEqual(parsePage(ctx('')), { page: 1, pageSize: 100, offset: 0 });
  t.is(parsePage(ctx('page_size=500')).pageSize, 100);
  t.deepEqual(parsePage(ctx('page_size=10&page=3')), { page: 3, pageSize: 10, offset: 20 });
});

test('bad page parameters are 400', (t) => {
  for (const q of ['page_size=0', 'page_size=-1', 'page=abc', 'page=0']) {
    const err = t.throws(() => parsePage(ctx(q)), { instanceOf: ApiError });
    t.is(err?.statusCode, 400, q);
  }
});

test('next and previous are absolute and keep the filters', (t) => {
  const c = ctx('page_size=2&page=2&watermarked=true');
  const env = pageEnvelope(c, parsePage(c), 7, ['c', 'd']);
  t.is(env.count, 7);
  t.is(env.next, 'http://127.0.0.1:8080/api/v4/things/?page_size=2&page=3&watermarked=true');
  t.is(env.previous, 'http://127.0.0.1:8080/api/v4/things/?page_size=2&watermarked=true');
  const last = ctx('page_size=2&page=4');
  const end = pageEnvelope(last, parsePage(last), 7, ['g'], { withCount: false, listName: 'children' });
  t.is(end.next, null);
  t.false('count' in end);
  t.deepEqual(end.children, ['g']);
});

test('cursors round-trip and garbage is a 400', (t) => {
  const c = { key: ['2026-01-01T00:00:00Z', 42], dir: 'n' as const };
  t.deepEqual(decodeCursor(encodeCursor(c), ['timestamp', 'id']), c);
  t.is(decodeCursor(undefined, ['timestamp', 'id']), null);
  t.is(t.throws(() => decodeCursor('not-a-cursor', ['timestamp', 'id']), { instanceOf: ApiError })?.code, 'invalid_cursor');
});

test('pages past the largest offset are 400 invalid_page; below it they are plain page requests', (t) => {
  t.deepEqual(parsePage(ctx('page=21474837&page_size=100')), { page: 21474837, pageSize: 100, offset: 2147483600 });
  for (const q of ['page=21474838&page_size=100', 'page=100000000000000000000', 'page=92233720368547758', `page=1${'0'.repeat(400)}`]) {
    t.is(t.throws(() => parsePage(ctx(q)), { instanceOf: ApiError })?.code, 'invalid_page', q);
  }
  // A page_size beyond what JavaScript holds exactly is capped like any large one (docs/api-decisions.md).
  t.deepEqual(parsePage(ctx(`page_size=1${'0'.repeat(30)}`)), { page: 1, pageSize: 100, offset: 0 });
  t.is(t.throws(() => parsePage(ctx(`page_size=-1${'0'.repeat(30)}`)), { instanceOf: ApiError })?.code, 'invalid_page_size');
});
