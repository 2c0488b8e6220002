import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { pathTrap, queryPath } from '../src/crawl-traps.js';
import { canonicalUrl } from '../src/crawl-url.js';
import { waitFor } from './support/test-site.js';

// Crawler traps on a real loopback site: an endless calendar (`?month=N` linking the next month,
// the previous one and the same month a year on), a catalogue `?id=1..15` that must be crawled
// whole, relative links nesting a path in itself (`/loop/x/x/x/...`, `/p/a/b/a/b/a/b/...`), a path
// of 25 segments, and session ids in links (`;jsessionid=`, `?PHPSESSID=`, a fresh one on every
// page). The query variants cap is lowered to 20 so the test stays short.

const CAP = 20;
/** A link over 2048 characters (MAX_URL_LENGTH): generated URLs grow without end too. */
const LONG = `/g/${'x'.repeat(2100)}`;
const ITEMS = 15;
let web: Server;
let base = '';
const requests: string[] = [];
let server: TestServer;

const html = (links: string[]) => `<!doctype html><html><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
const sid = () => Math.random().toString(36).slice(2).padEnd(12, '0') + Math.random().toString(36).slice(2).padEnd(12, '0');

test.before(async () => {
  web = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(req.url ?? '/');
    const page = (links: string[]) => void res.writeHead(200, { 'content-type': 'text/html' }).end(html(links));
    if (url.pathname === '/robots.txt') return void res.writeHead(404).end();
    if (url.pathname === '/') {
      const deep = `/d/${Array.from({ length: 25 }, (_, i) => i + 1).join('/')}/`;
      return page(['/cal?month=0', '/gen', LONG, '/loop/', '/p/a/b/', deep, `/s.html;jsessionid=${sid().toUpperCase()}`, `/s.html?PHPSESSID=${sid()}`, ...Array.from({ length: ITEMS }, (_, i) => `/item?id=${i + 1}`)]);
    }
    if (url.pathname === '/cal') {
      const m = Number(url.searchParams.get('month'));
      return page([`/cal?month=${m + 1}`, `/cal?month=${m - 1}`, `/cal?month=${m + 12}`, `/s.html;jsessionid=${sid().toUpperCase()}`]);
    }
    // One page linking 150 variants of one path (a faceted search's filters, say).
    if (url.pathname === '/gen') return page(url.search ? [] : Array.from({ length: 150 }, (_, i) => `/gen?x=${i}`));
    if (url.pathname === '/item') return page(['/', `/s.html?PHPSESSID=${sid()}`]);
    if (url.pathname === '/s.html') return page(['/']);
    // Relative links that nest the path in itself, as a misconfigured server or a broken <base> does.
    if (url.pathname.startsWith('/loop/')) return page(['x/']);
    if (url.pathname.startsWith('/p/')) return page(['a/b/']);
    if (url.pathname.startsWith('/d/')) return page(['/']);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  server = await startTestServer({
    plugins: ['crawler'],
    workers: true,
    config: { extra: { ...process.env, FETCH_ALLOW_HOSTS: '127.0.0.1', CRAWL_CONCURRENCY: '2', CRAWL_MAX_QUERY_VARIANTS: String(CAP) } },
  });
});
test.after.always(async () => {
  await server?.close();
  await new Promise((r) => web?.close(r));
});

test('trap shapes: repeated runs of segments, too many segments; session ids leave the canonical URL', (t) => {
  t.regex(pathTrap('https://e.example/loop/x/x/x/', 20) ?? '', /repeats "x" 3 times/);
  t.regex(pathTrap('https://e.example/p/a/b/a/b/a/b/', 20) ?? '', /repeats "a\/b" 3 times/);
  t.is(pathTrap('https://e.example/p/a/b/a/b/', 20), null, 'twice is allowed');
  t.is(pathTrap('https://e.example/photos/2001/01/01/img', 20), null, 'a date repeats a value, not three times in a row');
  t.is(pathTrap('https://e.example/a/b/c/a/b/c/', 20), null);
  t.regex(pathTrap(`https://e.example/${'s/'.repeat(0)}${Array.from({ length: 21 }, (_, i) => i).join('/')}`, 20) ?? '', /more than 20 segments/);
  t.is(pathTrap(`https://e.example/${Array.from({ length: 20 }, (_, i) => i).join('/')}/`, 20), null);
  t.is(canonicalUrl('https://e.example/s.html;jsessionid=0123ABCD?x=1&PHPSESSID=abc'), 'https://e.example/s.html?x=1');
  t.is(canonicalUrl('https://e.example/s?sid=0123456789abcdef0123&q=2'), 'https://e.example/s?q=2');
  t.is(canonicalUrl('https://e.example/s?sid=3'), 'https://e.example/s?sid=3', 'a short sid is no session id');
  t.is(queryPath('https://e.example/cal?month=3'), 'https://e.example/cal');
  t.is(queryPath('https://e.example/cal'), null);
});

test('an endless calendar stops at the query variants cap, a catalogue is crawled whole, nested paths stop, skips are logged', async (t) => {
  t.timeout(120_000);
  const key = (await server.createAccount('traps')).apiKey;
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: `${base}/`, download_delay: 0, search: false } });
  t.is(created.status, 201, created.text);
  const s = await waitFor('the crawl', async () => {
    const j = (await server.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
    return j.cycle_count >= 1 && (j.state === 'done' || j.state === 'failed') ? j : null;
  }, 100_000);
  t.is(s.state, 'done', String(s.reason));

  const paths = requests.map((r) => r.split('?')[0]!);
  t.log(`${requests.length} requests, ${s.progress?.pages} pages`);
  // The calendar: CAP months, not 10,000 pages (CRAWL_MAX_PAGES) nor CRAWL_MAX_DEPTH's fan-out.
  t.is(paths.filter((p) => p === '/cal').length, CAP, 'the calendar is cut at the cap');
  t.is(new Set(requests.filter((r) => r.startsWith('/item?'))).size, ITEMS, 'every catalogue item fetched');
  t.is(paths.filter((p) => p === '/s.html').length, 1, 'one page whatever its session ids');
  t.true(requests.includes('/loop/x/x/') && !requests.includes('/loop/x/x/x/'));
  t.true(requests.includes('/p/a/b/a/b/') && !requests.includes('/p/a/b/a/b/a/b/'));
  t.false(requests.some((r) => r.startsWith('/d/')), 'the 25-segment path is not fetched');
  t.false(requests.some((r) => r.startsWith('/g/')), 'the over-long link is not fetched');
  t.is(paths.filter((p) => p === '/gen').length, 1 + CAP);
  t.true(requests.length < 80, `${requests.length} requests in all`);

  // Every skip is a row of the batch's pages log, like a page robots.txt refuses.
  const batches = await server.call('GET', `/api/v3/crawling/sessions/${s.id}/batches/`, { key });
  const log = await fetch(batches.json.results[0].pages.log, { headers: { authorization: `Token ${key}` } });
  const rows = parse(gunzipSync(Buffer.from(await log.arrayBuffer())).toString('utf8'), { columns: true }) as { url: string; outcome: string }[];
  const outcome = (url: string) => rows.find((r) => r.url === url)?.outcome ?? '';
  t.regex(outcome(`${base}/loop/x/x/x/`), /^not followed: path repeats "x" 3 times in a row/);
  t.regex(outcome(`${base}/p/a/b/a/b/a/b/`), /^not followed: path repeats "a\/b" 3 times in a row/);
  t.regex(outcome(`${base}/d/${Array.from({ length: 25 }, (_, i) => i + 1).join('/')}/`), /^not followed: path of more than 20 segments/);
  t.regex(outcome(`${`${base}${LONG}`.slice(0, 2048)}...`), new RegExp(`^not followed: URL of ${base.length + LONG.length} characters, over 2048`));
  const calendarSkips = rows.filter((r) => r.url.startsWith(`${base}/cal?`) && r.outcome.startsWith('not followed'));
  t.true(calendarSkips.length >= 1, 'refused months are logged');
  t.regex(calendarSkips[0]!.outcome, new RegExp(`more than ${CAP} query variants of ${base}/cal \\(CRAWL_MAX_QUERY_VARIANTS`));
  t.is(rows.filter((r) => r.url.startsWith(`${base}/cal?`) && r.outcome === 'ok').length, CAP);
  t.false(rows.some((r) => r.url.startsWith(`${base}/item?`) && r.outcome.startsWith('not followed')));
  // 130 variants refused on one path: the first 100 have a row each, all are counted in the path's row.
  t.is(rows.filter((r) => r.url.startsWith(`${base}/gen?x=`) && r.outcome.startsWith('not followed')).length, 100);
  t.regex(outcome(`${base}/gen?*`), new RegExp(`^not followed: 130 links to query variants of ${base}/gen beyond the first ${CAP}`));
});
