import test from 'ava';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { TestSite, waitFor } from './support/test-site.js';

let server: TestServer;
let key: string;
const html = (body: string) => ({ type: 'text/html', body: `<html><body>${body}</body></html>` });
const gaps = (site: TestSite) => site.requests.slice(1).map((r, i) => r.at - site.requests[i]!.at);

test.before(async () => {
  server = await startTestServer({ plugins: ['crawler'], workers: true, config: { extra: { ...process.env, FETCH_ALLOW_HOSTS: '127.0.0.1', CRAWL_CONCURRENCY: '4' } } });
  key = (await server.createAccount('polite')).apiKey;
});
test.after.always(async () => server?.close());

async function crawl(site: TestSite, body: Record<string, unknown>) {
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: site.url('/'), search: false, ...body } });
  if (created.status !== 201) throw new Error(created.text);
  return created.json.id as number;
}
const done = (id: number) =>
  waitFor(`session ${id}`, async () => {
    const s = (await server.call('GET', `/api/v3/crawling/sessions/${id}/`, { key })).json;
    return s.state === 'done' || s.state === 'failed' ? s : null;
  });

test('Crawl-delay, download_delay and Retry-After spread the requests to one host; sessions run side by side', async (t) => {
  const links = '<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a>';
  const delayed = await new TestSite({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: Filigrane\nCrawl-delay: 1\nDisallow: /3\n\nUser-agent: *\nDisallow: /\n' },
    '/': html(links), '/1': html(links), '/2': html(links), '/3': html('no'),
  }).start();
  const spaced = await new TestSite({ '/': html(links), '/1': html(links), '/2': html(links), '/3': html(links) }).start();
  let calls = 0;
  const busy = await new TestSite({
    '/': (_req, res) => {
      calls++;
      if (calls === 1) res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' }).end('busy');
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>ok</html>');
    },
  }).start();
  try {
    const ids = [await crawl(delayed, { download_delay: 0 }), await crawl(spaced, { download_delay: 0.5 }), await crawl(busy, { download_delay: 0 })];
    const [a, b, c] = await Promise.all(ids.map(done));
    t.is(a.state, 'done');
    t.is(b.state, 'done');
    t.is(c.state, 'done', String(c.reason));

    // robots.txt for our agent: /3 disallowed, Crawl-delay 1 s between requests.
    t.deepEqual(delayed.requests.map((r) => r.path), ['/robots.txt', '/', '/1', '/2']);
    t.true(gaps(delayed).slice(1).every((g) => g >= 950), `gaps ${gaps(delayed)}`);
    // download_delay 0.5 s between requests to one host, whatever the concurrency.
    t.is(spaced.requests.length, 5);
    t.true(gaps(spaced).slice(1).every((g) => g >= 450), `gaps ${gaps(spaced)}`);
    // 503 with Retry-After: 1 -> retried once, a second later.
    t.is(busy.hits('/').length, 2);
    t.true(busy.hits('/')[1]!.at - busy.hits('/')[0]!.at >= 950);
    const batch = (await server.call('GET', `/api/v3/crawling/sessions/${ids[2]}/batches/`, { key })).json.results[0];
    t.is(batch.pages.count, 1);
  } finally {
    await Promise.all([delayed.close(), spaced.close(), busy.close()]);
  }
});

test('hostile pages: a 50 MB page, a redirect loop, an endless calendar and a bomb image end the crawl cleanly', async (t) => {
  const big = Buffer.alloc(50 * 1024 * 1024, 0x61);
  const bomb = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d4948445200007530000075300806000000', 'hex'), Buffer.alloc(64)]);
  const site = await new TestSite({
    '/': html('<a href="/big">big</a><a href="/loop1">loop</a><a href="/cal?d=1">cal</a><img src="/bomb.png"><img src="/corrupt.jpg">'),
    '/big': { type: 'text/html', body: big },
    '/loop1': (_q, res) => res.writeHead(302, { location: '/loop2' }).end(),
    '/loop2': (_q, res) => res.writeHead(302, { location: '/loop1' }).end(),
    '/cal': (req, res) => {
      const d = Number(new URL(req.url!, 'http://x').searchParams.get('d'));
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="/cal?d=${d + 1}">next</a>`);
    },
    '/bomb.png': { type: 'image/png', body: bomb },
    '/corrupt.jpg': { type: 'image/jpeg', body: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) },
  }).start();
  try {
    const id = await crawl(site, { download_delay: 0, search: true });
    const s = await done(id);
    t.is(s.state, 'done');
    const batch = (await server.call('GET', `/api/v3/crawling/sessions/${id}/batches/`, { key })).json.results[0];
    // The calendar stops at the depth limit (CRAWL_MAX_DEPTH); the loop at the visited set.
    t.true(batch.pages.count > 30 && batch.pages.count < 40, String(batch.pages.count));
    t.is(site.hits('/loop1').length, 1);
    t.is(site.hits('/big').length, 1);
    t.is(batch.images.count, 2);
  } finally {
    await site.close();
  }
});
