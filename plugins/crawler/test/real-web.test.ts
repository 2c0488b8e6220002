// What real and hostile sites serve, met from outside (session 10's sweep): pages in legacy
// encodings, images behind redirects (CDNs), lazy-loaded and <style> images, redirects that lead
// nowhere they may go, and an endless redirect chain.
import test from 'ava';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { TestSite, waitFor } from './support/test-site.js';

let server: TestServer;
let key: string;
let markedJpeg: Buffer;
const MAX_DEPTH = 6;

test.before(async () => {
  server = await startTestServer({
    plugins: ['crawler'],
    workers: true,
    // Off-site images fetched, so a redirect to a private address meets the SSRF guard itself; a
    // 2 s claim lease, shorter than a Retry-After wait.
    config: { extra: { ...process.env, FETCH_ALLOW_HOSTS: '127.0.0.1', CRAWL_CONCURRENCY: '2', CRAWL_MAX_DEPTH: String(MAX_DEPTH), CRAWL_OFFSITE_IMAGES: 'true', CRAWL_CLAIM_LEASE: '2' } },
  });
  key = (await server.createAccount('realweb')).apiKey;
  const marked = await embed(await syntheticPhoto(71), generateKey());
  markedJpeg = await sharp(marked.image).resize(400).jpeg({ quality: 85 }).toBuffer();
  const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${key}` } })).arrayBuffer());
  const reg = await server.call('PUT', '/api/v4/media/realweb/photo.png', { key, body: encodeLmk(marked.registration, der), headers: { 'content-type': 'application/lmk' } });
  if (reg.status !== 201) throw new Error(reg.text);
});
test.after.always(async () => server?.close());

async function crawl(site: TestSite, search: boolean) {
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: site.url('/'), search, download_delay: 0, download_timeout: 5 } });
  if (created.status !== 201) throw new Error(created.text);
  const s = await waitFor(`session ${created.json.id}`, async () => {
    const r = (await server.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
    return r.state === 'done' || r.state === 'failed' ? r : null;
  });
  const batch = (await server.call('GET', `/api/v3/crawling/sessions/${s.id}/batches/`, { key })).json.results[0];
  const log = async (url: string) => {
    const res = await fetch(url, { headers: { authorization: `Token ${key}` } });
    return gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8').trim().split('\r\n').join('\n').split('\n');
  };
  return { s, batch, pages: await log(batch.pages.log), images: await log(batch.images.log) };
}

test('pages in legacy encodings keep their titles and non-ASCII links (Content-Type charset, <meta charset>, UTF-16 BOM)', async (t) => {
  const site = await new TestSite({
    '/': { type: 'text/html', body: '<html><a href="/latin1">l</a><a href="/sjis">s</a><a href="/utf16">u</a></html>' },
    '/latin1': { type: 'text/html; charset=ISO-8859-1', body: Buffer.from('<html><head><title>Caf\xe9 cr\xe8me</title></head><body><a href="/caf\xe9">x</a></body></html>', 'latin1') },
    '/sjis': {
      type: 'text/html',
      body: Buffer.concat([Buffer.from('<html><head><meta charset="shift_jis"><title>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from('</title></head></html>')]),
    },
    '/utf16': { type: 'text/html; charset=utf-16', body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html><head><title>UTF-16 page</title></head><body><a href="/from-utf16">x</a></body></html>', 'utf16le')]) },
    '/caf%C3%A9': { type: 'text/html', body: '<html><title>accent</title></html>' },
    '/from-utf16': { type: 'text/html', body: '<html><title>reached</title></html>' },
  }).start();
  try {
    const { s, pages } = await crawl(site, false);
    t.is(s.state, 'done', String(s.reason));
    const title = (path: string) => pages.find((l) => l.startsWith(`${site.url(path)},`))?.split(',')[4];
    t.is(title('/latin1'), 'Café crème');
    t.is(title('/sjis'), '日本');
    t.is(title('/utf16'), 'UTF-16 page');
    t.is(site.hits('/caf%C3%A9').length, 1, 'the link is the UTF-8 form of "café", as browsers send it');
    t.is(site.hits('/from-utf16').length, 1);
  } finally {
    await site.close();
  }
});

test('images behind redirects, lazy-loaded and in <style> are found; redirects never reach what they must not; an endless redirect chain ends', async (t) => {
  const photo = { type: 'image/jpeg', body: markedJpeg };
  const other = await syntheticPhoto(72).then((b) => sharp(b).resize(300).jpeg().toBuffer());
  const hop = (to: string, status = 302) => (_q: unknown, res: import('node:http').ServerResponse) => res.writeHead(status, { location: to }).end();
  const site = await new TestSite({
    '/': {
      type: 'text/html',
      body: `<html><head><style>.hero { background-image: url('/img/hero.jpg') }</style></head><body>
        <img src="/cdn/photo.jpg"><img src="/r/private.jpg"><img src="/r/metadata.jpg"><img src="/r/file.jpg"><img src="/r/loop-a.jpg">
        <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-srcset="/img/lazy.jpg 400w"><img data-lazy-src="/img/wp.jpg">
        <a href="/chain/0">chain</a><a href="/to-file">file</a></body></html>`,
    },
    '/cdn/photo.jpg': hop('/cdn/v2/photo.jpg'),
    '/cdn/v2/photo.jpg': hop('/files/photo-400.jpg', 301),
    '/files/photo-400.jpg': photo,
    '/r/private.jpg': hop('http://10.1.2.3/x.jpg'),
    '/r/metadata.jpg': hop('http://169.254.169.254/latest/meta-data/x.jpg'),
    '/r/file.jpg': hop('file:///etc/passwd'),
    '/r/loop-a.jpg': hop('/r/loop-b.jpg'),
    '/r/loop-b.jpg': hop('/r/loop-a.jpg'),
    '/img/hero.jpg': { type: 'image/jpeg', body: other },
    '/img/lazy.jpg': { type: 'image/jpeg', body: other },
    '/img/wp.jpg': { type: 'image/jpeg', body: other },
    '/to-file': hop('file:///etc/passwd'),
    ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`/chain/${i}`, hop(`/chain/${i + 1}`)])),
  }).start();
  try {
    const { s, batch, pages, images } = await crawl(site, true);
    t.is(s.state, 'done', String(s.reason));
    const outcome = (rows: string[], path: string) => rows.find((l) => l.startsWith(`${site.url(path)},`)) ?? '';

    // The photo a CDN serves behind two redirects is fetched once and matched, under its file's URL.
    t.is(site.hits('/files/photo-400.jpg').length, 1);
    t.regex(outcome(images, '/cdn/photo.jpg'), /redirect to .*\/cdn\/v2\/photo\.jpg/);
    t.regex(outcome(images, '/files/photo-400.jpg'), /matched \(web\)/);
    const web = (await server.call('GET', `/api/v3/matches/web/?session_id=${s.id}`, { key })).json.results;
    t.is(web.length, 1);
    t.like(web[0], { watermarked: true, query_url: site.url('/files/photo-400.jpg'), query_page_url: site.url('/') });

    // Redirects to private addresses meet the SSRF guard; other schemes are never followed.
    t.true(images.some((l) => l.startsWith('http://10.1.2.3/x.jpg,') && l.includes('address_not_allowed')), images.join('\n'));
    t.true(images.some((l) => l.startsWith('http://169.254.169.254/latest/meta-data/x.jpg,') && l.includes('address_not_allowed')));
    t.regex(outcome(images, '/r/file.jpg'), /redirect to file:\/\/\/etc\/passwd \(not followed/);
    t.regex(outcome(pages, '/to-file'), /redirect to file:\/\/\/etc\/passwd \(not followed/);
    t.is(site.hits('/r/loop-a.jpg').length, 1);
    t.is(site.hits('/r/loop-b.jpg').length, 1);

    // Lazy-loaded (data-srcset, data-lazy-src) and <style> background images are images of the page.
    for (const p of ['/img/hero.jpg', '/img/lazy.jpg', '/img/wp.jpg']) t.is(site.hits(p).length, 1, p);

    // Each redirect is a hop: the endless chain stops at CRAWL_MAX_DEPTH like a chain of links.
    const chain = site.requests.filter((r) => r.path.startsWith('/chain/')).length;
    t.true(chain >= MAX_DEPTH - 1 && chain <= MAX_DEPTH, `chain hops fetched: ${chain}`);
    t.regex(pages.find((l) => l.includes('not followed') && l.includes('/chain/')) ?? '', /deeper than 6 links/);
    t.true(batch.pages.count < 12, String(batch.pages.count));
  } finally {
    await site.close();
  }
});

test('a page waiting out a Retry-After longer than its claim lease is not fetched twice', async (t) => {
  let calls = 0;
  const site = await new TestSite({
    '/': { type: 'text/html', body: '<html><a href="/slow">slow</a></html>' },
    '/slow': (_q, res) => {
      if (calls++ === 0) res.writeHead(503, { 'retry-after': '3', 'content-type': 'text/plain' }).end('busy');
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>slow</title></html>');
    },
  }).start();
  try {
    const { s, batch } = await crawl(site, false);
    t.is(s.state, 'done', String(s.reason));
    t.is(site.hits('/slow').length, 2, 'the 503, then its one retry: no second worker took the page meanwhile');
    t.is(batch.pages.count, 2);
    t.is(s.progress.pages, 2);
  } finally {
    await site.close();
  }
});

test('pause and DELETE stop the requests at once, not after the pages already claimed; a resumed crawl fetches each page once', async (t) => {
  const pages = (n: number) => ({
    '/': { type: 'text/html', body: `<html>${Array.from({ length: n }, (_, i) => `<a href="/p/${i + 1}">${i + 1}</a>`).join('')}</html>` },
    ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`/p/${i + 1}`, { type: 'text/html', body: `<html><title>${i + 1}</title></html>` }])),
  });
  const act = (id: number, what: 'pause' | 'resume') => server.call('POST', `/api/v3/crawling/sessions/${id}/${what}/`, { key });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const paused = await new TestSite(pages(10)).start();
  const deleted = await new TestSite(pages(10)).start();
  try {
    const start = async (site: TestSite) => {
      const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: site.url('/'), search: false, download_delay: 1 } });
      await waitFor('the first pages', async () => site.requests.filter((r) => r.path.startsWith('/p/')).length >= 2, 30_000);
      return created.json.id as number;
    };
    const id = await start(paused);
    // The workers read the session every second: a request may still leave within that second, none after.
    t.is((await act(id, 'pause')).status, 202);
    await sleep(1500);
    const settled = paused.requests.length;
    await sleep(3000);
    t.is(paused.requests.length, settled, `${paused.requests.length - settled} requests more than 1.5 s after the pause`);
    t.is((await act(id, 'resume')).status, 202);
    const s = await waitFor(`session ${id}`, async () => {
      const r = (await server.call('GET', `/api/v3/crawling/sessions/${id}/`, { key })).json;
      return r.state === 'done' || r.state === 'failed' ? r : null;
    });
    t.is(s.state, 'done', String(s.reason));
    for (let i = 1; i <= 10; i++) t.is(paused.hits(`/p/${i}`).length, 1, `/p/${i}`);

    const gone = await start(deleted);
    t.is((await server.call('DELETE', `/api/v3/crawling/sessions/${gone}/`, { key })).status, 204);
    await sleep(1500);
    const atDelete = deleted.requests.length;
    await sleep(3000);
    t.is(deleted.requests.length, atDelete, `${deleted.requests.length - atDelete} requests more than 1.5 s after the DELETE`);
  } finally {
    await Promise.all([paused.close(), deleted.close()]);
  }
});

test('a robots.txt behind redirects is followed (RFC 9309: five hops): its rules hold', async (t) => {
  const site = await new TestSite({
    '/robots.txt': (_q, res) => res.writeHead(301, { location: '/r2/robots.txt' }).end(),
    '/r2/robots.txt': (_q, res) => res.writeHead(302, { location: '/static/robots.txt' }).end(),
    '/static/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' },
    '/': { type: 'text/html', body: '<html><a href="/private/x">p</a><a href="/open">o</a></html>' },
    '/private/x': { type: 'text/html', body: '<html>private</html>' },
    '/open': { type: 'text/html', body: '<html>open</html>' },
  }).start();
  try {
    const { s, pages } = await crawl(site, false);
    t.is(s.state, 'done', String(s.reason));
    t.is(site.hits('/private/x').length, 0);
    t.is(site.hits('/open').length, 1);
    t.true(pages.some((l) => l.startsWith(site.url('/private/x')) && l.includes('disallowed by robots.txt')));
  } finally {
    await site.close();
  }
});

test('the time limit (crawl_delay) ends the crawl on time, not after the pages already claimed', async (t) => {
  // An endless site: every page links to two more.
  const endless = await new TestSite({
    '/': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/p?n=1">1</a><a href="/p?n=2">2</a>'),
    '/p': (req, res) => {
      const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'));
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<a href="/p?n=${2 * n + 1}">a</a><a href="/p?n=${2 * n + 2}">b</a>`);
    },
  }).start();
  try {
    const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: endless.url('/'), search: false, download_delay: 2, crawl_delay: 10 } });
    t.is(created.status, 201, created.text);
    const s = await waitFor('the time limit', async () => {
      const r = (await server.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
      return r.state === 'done' || r.state === 'failed' ? r : null;
    });
    t.is(s.state, 'done');
    t.is(s.reason, 'time limit (crawl_delay) reached');
    const first = endless.requests[0]!.at;
    const last = endless.requests.at(-1)!.at;
    t.true(last - first < 12_500, `requests went on for ${(last - first) / 1000} s of a 10 s crawl`);
  } finally {
    await endless.close();
  }
});

test('a crawl that met only redirects (to another site, in a loop) fails and says where the start URL led', async (t) => {
  const away = await new TestSite({ '/': (_q, res) => res.writeHead(301, { location: 'http://elsewhere.example/' }).end() }).start();
  const loop = await new TestSite({
    '/': (_q, res) => res.writeHead(302, { location: '/a' }).end(),
    '/a': (_q, res) => res.writeHead(302, { location: '/' }).end(),
  }).start();
  try {
    const a = await crawl(away, false);
    t.is(a.s.state, 'failed');
    t.is(a.s.reason, 'no page could be fetched: redirect to http://elsewhere.example/ (other site, not followed)');
    const b = await crawl(loop, false);
    t.is(b.s.state, 'failed');
    t.regex(b.s.reason, /^no page could be fetched: redirect to /);
  } finally {
    await Promise.all([away.close(), loop.close()]);
  }
});
