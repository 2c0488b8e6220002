import test from 'ava';
import { gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import tar from 'tar-stream';
import { WARCParser } from 'warcio';
import { contribute, definePlugin, EVENT_LISTENERS, type DomainEvent } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { TestSite, waitFor } from './support/test-site.js';

let server: TestServer;
let key: string;
let site: TestSite;
let other: TestSite;
let markedImage: Buffer;
const events: DomainEvent[] = [];
const probe = definePlugin({ id: 'event-probe', contributions: [contribute(EVENT_LISTENERS, () => (e: DomainEvent) => void events.push(e))] });

const XMP_CREDIT = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:Credit="Photo: Studio Lumen / Agence X"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

test.before(async () => {
  other = await new TestSite({ '/': { type: 'text/html', body: '<a href="/x">x</a>' } }).start();
  const original = await syntheticPhoto(31);
  const marked = await embed(original, generateKey());
  markedImage = marked.image;
  const markedJpeg = await sharp(marked.image).jpeg({ quality: 92 }).toBuffer();
  const credited = await sharp(await syntheticPhoto(55)).jpeg().withXmp(XMP_CREDIT).withExif({ IFD0: { Artist: 'Jane Doe' } }).toBuffer();
  const tiny = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#f00' } }).png().toBuffer();
  const home = `<!doctype html><html><head><title>Home</title>
    <meta property="og:image" content="/img/og.jpg"><meta name="twitter:image" content="/img/og.jpg">
    <script type="application/ld+json">{"@type":"NewsArticle","headline":"Our story","author":{"name":"Ann Writer"},"datePublished":"2026-11-01T08:00:00Z"}</script>
    </head><body style="background-image:url('/img/bg.jpg')">
    <a href="/a.html#top">A</a> <a href="/private/secret.html">secret</a> <a href="${other.url('/', 'localhost')}">elsewhere</a>
    <img src="/img/marked.jpg"><img src="/img/tiny.png" srcset="/img/credited.jpg 2x">
    <picture><source srcset="/img/pic.jpg 1x"><img src="/img/tiny.png"></picture>
    <a href="/files/report.pdf">report</a><video><source src="/v/clip.mp4"></video><a href="/img/linked.jpg">photo</a>
    <p><b>unclosed <i>markup</p></body></html>`;
  const jpeg = (seed: number) => syntheticPhoto(seed).then((b) => sharp(b).jpeg().toBuffer());
  site = await new TestSite({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' },
    '/': { type: 'text/html; charset=utf-8', body: home },
    '/a.html': { type: 'text/html', body: '<html><body><a href="/">home</a><a href="/b.html">b</a><img src="/img/marked.jpg"></body></html>', etag: '"a-1"' },
    '/b.html': { type: 'application/octet-stream', body: '<!DOCTYPE html><html><body>sniffed as HTML</body></html>' },
    '/private/secret.html': { type: 'text/html', body: '<html>secret</html>' },
    '/img/marked.jpg': { type: 'image/jpeg', body: markedJpeg, etag: '"m-1"' },
    '/img/credited.jpg': { type: 'image/jpeg', body: credited },
    '/img/tiny.png': { type: 'image/png', body: tiny },
    '/img/og.jpg': { type: 'image/jpeg', body: await jpeg(61) },
    '/img/bg.jpg': { type: 'image/jpeg', body: await jpeg(62) },
    '/img/pic.jpg': { type: 'image/jpeg', body: await jpeg(63) },
    '/img/linked.jpg': { type: 'text/plain', body: await jpeg(64) },
    '/v/clip.mp4': { type: 'video/mp4', body: Buffer.from('not really a video, but a download all the same') },
  }).start();

  server = await startTestServer({
    plugins: ['crawler', probe],
    workers: true,
    config: { extra: { ...process.env, FETCH_ALLOW_HOSTS: '127.0.0.1,localhost,::1', CRAWL_CONCURRENCY: '2' } },
  });
  const account = await server.createAccount('lumen', { fullName: 'Studio Lumen' });
  key = account.apiKey;
  const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${key}` } })).arrayBuffer());
  const reg = await server.call('PUT', '/api/v4/media/lumen/photo.png', { key, body: encodeLmk(marked.registration, der), headers: { 'content-type': 'application/lmk' } });
  if (reg.status !== 201) throw new Error(reg.text);
});
test.after.always(async () => {
  await server?.close();
  await site?.close();
  await other?.close();
});

const session = (id: number, k = key) => server.call('GET', `/api/v3/crawling/sessions/${id}/`, { key: k });
const finished = (id: number, cycles: number) =>
  waitFor(`crawl ${cycles} of session ${id}`, async () => {
    const s = (await session(id)).json;
    return s.cycle_count >= cycles && (s.state === 'done' || s.state === 'failed') ? s : null;
  });
const download = async (url: string) => {
  const res = await fetch(url, { headers: { authorization: `Token ${key}` } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
};
const csvRows = (gz: Buffer) => gunzipSync(gz).toString('utf8').trim().split('\n');

test.serial('a crawl follows the site, finds images every way, matches them, and writes one batch with its files', async (t) => {
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: site.url('/'), download_delay: 0 } });
  t.is(created.status, 201, created.text);
  t.like(created.json, { state: 'pending', cycle_count: 0, search: true, download_delay: 0, crawl_delay: 3600, download_timeout: 30, start_urls: [site.url('/')] });
  for (const f of ['url', 'id', 'ctime', 'mtime', 'stime', 'state', 'cycle_count', 'crawl_delay', 'search', 'download_delay', 'download_timeout', 'start_urls', 'batches']) t.true(f in created.json, f);
  const s = await finished(created.json.id, 1);
  t.is(s.state, 'done', String(s.reason));
  t.truthy(s.stime);

  // Politeness: robots.txt read first, the disallowed page never fetched, other sites never fetched.
  t.is(site.requests[0]!.path, '/robots.txt');
  t.is(site.hits('/private/secret.html').length, 0);
  t.is(other.requests.length, 0);
  t.true(site.requests.every((r) => /Filigrane/.test(String(r.headers['user-agent']))));
  t.is(site.hits('/a.html').length, 1, 'the #fragment link is the same page');

  const batches = await server.call('GET', `/api/v3/crawling/sessions/${s.id}/batches/`, { key });
  t.is(batches.status, 200);
  t.false('count' in batches.json);
  t.is(batches.json.results.length, 1);
  const batch = batches.json.results[0];
  t.like(batch, { crawl_cycle: 1, session: s.url, pages: { count: 4 }, videos: { count: 1 }, documents: { count: 1 } });
  t.is(batch.images.count, 7);

  const pages = csvRows((await download(batch.pages.log)).body);
  t.is(pages[0], 'url,status,content_type,bytes,title,outcome,fetched_at');
  t.true(pages.some((l) => l.includes('/private/secret.html') && l.includes('disallowed by robots.txt')));
  t.true(pages.some((l) => l.startsWith(site.url('/b.html')) && l.includes(',ok,')), 'HTML sniffed despite its content type');
  const images = csvRows((await download(batch.images.log)).body);
  for (const p of ['/img/marked.jpg', '/img/credited.jpg', '/img/og.jpg', '/img/bg.jpg', '/img/pic.jpg', '/img/linked.jpg', '/img/tiny.png']) {
    t.true(images.some((l) => l.startsWith(site.url(p))), p);
  }
  t.true(images.some((l) => l.startsWith(site.url('/img/tiny.png')) && l.includes('too small')));
  t.true(csvRows((await download(batch.videos.log)).body).some((l) => l.startsWith(site.url('/v/clip.mp4'))));
  t.true(csvRows((await download(batch.documents.log)).body).some((l) => l.startsWith(site.url('/files/report.pdf'))));

  const tarFile = await download(batch.images.tar);
  t.is(tarFile.res.headers.get('content-type'), 'application/x-tar');
  t.is(Number(tarFile.res.headers.get('content-length')), tarFile.body.length);
  const names: string[] = [];
  const extract = tar.extract();
  extract.on('entry', (h, stream, next) => {
    names.push(h.name);
    stream.resume();
    stream.on('end', next);
  });
  await new Promise<void>((resolve, reject) => extract.on('finish', () => resolve()).on('error', reject).end(tarFile.body));
  t.is(names.length, 7);
  t.true(names.every((n) => /^\d{8}-[A-Za-z0-9._-]+$/.test(n)));

  const warc = await download(batch.pages.warc);
  t.is(warc.res.headers.get('content-type'), 'application/gzip');
  const records: { type: string; url?: string; digest?: string | null; payload?: string | null; version: string }[] = [];
  for await (const r of WARCParser.iterRecords(Readable.from([warc.body]))) {
    await r.readFully();
    records.push({ type: r.warcType!, url: r.warcTargetURI ?? undefined, digest: r.warcHeader('WARC-Block-Digest'), payload: r.warcPayloadDigest ?? null, version: r.warcHeaders.protocol ?? '' });
  }
  t.is(records[0]!.type, 'warcinfo');
  t.true(records.every((r) => r.version === 'WARC/1.1'));
  t.true(records.slice(1).every((r) => r.digest && r.payload));
  const responses = records.filter((r) => r.type === 'response');
  t.true(responses.some((r) => r.url === site.url('/a.html') && r.payload));
  t.is(records.filter((r) => r.type === 'request').length, responses.length);
  t.true(responses.some((r) => r.url === site.url('/robots.txt')), 'the robots.txt exchange is in the WARC');
  t.is(site.hits('/v/clip.mp4').length, 1);
  t.true(responses.some((r) => r.url === site.url('/v/clip.mp4')), 'the video fetch is in the WARC');

  // Matching: the watermarked photo found with each page showing it (fetched once); the credit line read from XMP/EXIF.
  t.is(site.hits('/img/marked.jpg').length, 1);
  const web = await server.call('GET', `/api/v3/matches/web/?session_id=${s.id}`, { key });
  t.is(web.json.count, 2, web.text);
  const home = web.json.results.find((m: { query_page_url: string }) => m.query_page_url === site.url('/'));
  t.like(home, { watermarked: true, session_id: s.id, image: { type: 'web', url: site.url('/img/marked.jpg'), page_url: site.url('/') } });
  t.truthy(home.image.md5);
  t.like(web.json.results.find((m: { query_page_url: string }) => m.query_page_url === site.url('/a.html')), { watermarked: true, image: { url: site.url('/img/marked.jpg') } });
  const v4 = await server.call('GET', `/api/v4/matches/?sessions=${s.id}`, { key });
  t.is(v4.json.results.length, 2);
  t.like(v4.json.results.find((m: { page?: { headline?: string } }) => m.page?.headline === 'Our story'), { sessions: [s.id], page: { type: 'article', author: 'Ann Writer' } });
  const credit = await server.call('GET', '/api/v3/matches/credit/', { key });
  t.is(credit.json.count, 1, credit.text);
  t.like(credit.json.results[0], { image_url: site.url('/img/credited.jpg'), page_url: site.url('/') });
  t.regex(credit.json.results[0].credit, /Studio Lumen/);

  // Delivered from the outbox by a job after the batch's commit.
  await server.drainJobs();
  const event = events.find((e) => e.type === 'crawl.batch.created');
  t.like(event, { accountId: s.id ? event!.accountId : 0, data: { session_id: s.id, batch_id: batch.id } });

  // The next crawl: conditional GET, nothing unchanged downloaded again, no duplicate match.
  const again = await server.call('POST', `/api/v3/crawling/sessions/${s.id}/crawl/`, { key });
  t.is(again.status, 202, again.text);
  const twice = await server.call('POST', `/api/v3/crawling/sessions/${s.id}/crawl/`, { key });
  t.is(twice.status, 409);
  const s2 = await finished(s.id, 2);
  t.is(s2.state, 'done');
  const aHits = site.hits('/a.html');
  t.is(aHits.length, 2);
  t.is(aHits[1]!.headers['if-none-match'], '"a-1"');
  t.is(site.hits('/img/marked.jpg')[1]?.headers['if-none-match'], '"m-1"');
  t.is((await server.call('GET', `/api/v3/matches/web/`, { key })).json.count, 2);
  const all = await server.call('GET', '/api/v3/crawling/batches/', { key });
  t.deepEqual(all.json.results.map((b: { crawl_cycle: number }) => b.crawl_cycle), [2, 1]);
});

test.serial('image fetches send a browser Accept header; WebP and AVIF copies are identified and their format logged', async (t) => {
  const webp = await sharp(markedImage).webp({ quality: 80 }).toBuffer();
  const jpeg = await sharp(markedImage).jpeg({ quality: 85 }).toBuffer();
  const avif = await sharp(markedImage).resize({ width: 300 }).avif({ quality: 60 }).toBuffer();
  // An image CDN negotiating on Accept, as real ones do: WebP to browsers, JPEG to anything else.
  const cdn = await new TestSite({
    '/': { type: 'text/html', body: '<html><body><img src="/cdn/photo"><img src="/img/photo.avif"></body></html>' },
    '/cdn/photo': (req, res) => {
      const wantsWebp = /image\/webp/.test(String(req.headers.accept ?? ''));
      res.writeHead(200, { 'content-type': wantsWebp ? 'image/webp' : 'image/jpeg', vary: 'Accept' }).end(wantsWebp ? webp : jpeg);
    },
    '/img/photo.avif': { type: 'image/avif', body: avif },
  }).start();
  try {
    const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: cdn.url('/'), download_delay: 0 } });
    t.is(created.status, 201, created.text);
    const s = await finished(created.json.id, 1);
    t.is(s.state, 'done', String(s.reason));
    t.is(cdn.hits('/cdn/photo')[0]?.headers.accept, 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8');
    const batch = (await server.call('GET', `/api/v3/crawling/sessions/${s.id}/batches/`, { key })).json.results[0];
    const images = csvRows((await download(batch.images.log)).body);
    const column = images[0]!.split(',').indexOf('format');
    t.true(column >= 0, images[0]);
    const formatOf = (path: string) => images.find((l) => l.startsWith(cdn.url(path)))?.split(',')[column];
    t.is(formatOf('/cdn/photo'), 'webp');
    t.is(formatOf('/img/photo.avif'), 'avif');
    const web = await server.call('GET', `/api/v3/matches/web/?session_id=${s.id}`, { key });
    const urls = web.json.results.map((m: { image: { url: string } }) => m.image.url).sort();
    t.deepEqual(urls, [cdn.url('/cdn/photo'), cdn.url('/img/photo.avif')], web.text);
    t.true(web.json.results.every((m: { watermarked: boolean }) => m.watermarked));
  } finally {
    await cdn.close();
  }
});

test.serial('a crawl of a forbidden address fails saying the address is not allowed, not robots.txt', async (t) => {
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: 'http://169.254.169.254/latest/meta-data/', download_delay: 0 } });
  t.is(created.status, 201, created.text);
  const s = await finished(created.json.id, 1);
  t.is(s.state, 'failed');
  t.regex(String(s.reason), /address_not_allowed/);
  t.notRegex(String(s.reason), /robots/);
  const [batch] = (await server.call('GET', `/api/v3/crawling/sessions/${s.id}/batches/`, { key })).json.results;
  const pages = csvRows((await download(batch.pages.log)).body);
  t.true(pages.some((l) => l.startsWith('http://169.254.169.254/latest/meta-data/') && l.includes('address_not_allowed') && !l.includes('robots')), pages.join('\n'));
});

test.serial('sessions: validation per field, ctime filters, states, isolation, delete', async (t) => {
  const bad = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: 'ftp://x', download_delay: -1, crawl_delay: 'x', search: 'yes', start_urls: ['http://elsewhere.example/'] } });
  t.is(bad.status, 400);
  t.is(bad.json.status_code, 400);
  t.truthy(bad.json.details.url);
  t.truthy(bad.json.details.download_delay);
  t.truthy(bad.json.details.crawl_delay);
  t.truthy(bad.json.details.search);
  t.is((await server.call('POST', '/api/v3/crawling/sessions/', { key, json: {} })).json.details.url[0], 'This field is required.');
  const mixed = await server.call('GET', '/api/v3/crawling/sessions/?ctime=2026-01-01&ctime_gt=2025-01-01', { key });
  t.is(mixed.status, 400);
  t.is((await server.call('GET', '/api/v3/crawling/sessions/?ctime_lt=2000-01-01', { key })).json.results.length, 0);
  const today = new Date().toISOString().slice(0, 10);
  t.true((await server.call('GET', `/api/v3/crawling/sessions/?ctime=${today}`, { key })).json.results.length >= 1);
  t.is((await server.call('GET', '/api/v3/crawling/sessions/?ctime_gt=bad', { key })).status, 400);

  // An unreachable start URL: the crawl ends failed with a readable reason.
  const dead = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: 'http://127.0.0.1:9/', download_timeout: 2 } });
  const paused = await server.call('POST', `/api/v3/crawling/sessions/${dead.json.id}/pause/`, { key });
  t.is(paused.status, 202);
  t.is(paused.json.state, 'paused');
  t.is((await server.call('POST', `/api/v3/crawling/sessions/${dead.json.id}/pause/`, { key })).status, 409);
  t.is((await server.call('POST', `/api/v3/crawling/sessions/${dead.json.id}/crawl/`, { key })).status, 409);
  t.is((await server.call('POST', `/api/v3/crawling/sessions/${dead.json.id}/resume/`, { key })).status, 202);
  const failed = await finished(dead.json.id, 1);
  t.is(failed.state, 'failed');
  t.regex(failed.reason, /no page could be fetched/);
  t.is((await server.call('POST', `/api/v3/crawling/sessions/${dead.json.id}/resume/`, { key })).status, 409);

  const stranger = await server.createAccount('stranger');
  t.is((await session(dead.json.id, stranger.apiKey)).status, 404);
  t.is((await server.call('GET', '/api/v3/crawling/batches/', { key: stranger.apiKey })).json.results.length, 0);
  t.is((await server.call('DELETE', `/api/v3/crawling/sessions/${dead.json.id}/`, { key: stranger.apiKey })).status, 404);
  t.is((await server.call('DELETE', `/api/v3/crawling/sessions/${dead.json.id}/`, { key })).status, 204);
  t.is((await session(dead.json.id)).status, 404);
  t.is((await server.call('GET', '/api/v4/crawling/sessions/', { key })).status, 404);

  const gql = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ crawlSessions { nodes { id state cycleCount latestBatch { crawlCycle } batches { nodes { crawlCycle pages { count warc } } } } } }' }),
  }).then((r) => r.json() as Promise<{ data: { crawlSessions: { nodes: { cycleCount: number; latestBatch: { crawlCycle: number }; batches: { nodes: unknown[] } }[] } } }>);
  t.true(gql.data.crawlSessions.nodes.some((x) => x.cycleCount === 2 && x.batches.nodes.length === 2 && x.latestBatch.crawlCycle === 2), JSON.stringify(gql));
});

test.serial('an id no session or batch can have (beyond the integer column) is 404 like any unknown id; a malformed one stays 400', async (t) => {
  for (const big of ['2147483648', '99999999999999999999', '0000000000000000000000000002147483648']) {
    for (const [method, path] of [
      ['GET', `/api/v3/crawling/sessions/${big}/`],
      ['DELETE', `/api/v3/crawling/sessions/${big}/`],
      ['POST', `/api/v3/crawling/sessions/${big}/crawl/`],
      ['GET', `/api/v3/crawling/sessions/${big}/batches/`],
      ['GET', `/api/v3/crawling/batches/${big}/`],
      ['GET', `/api/v3/crawling/batches/${big}/images.tar`],
    ] as const) {
      const res = await server.call(method, path, { key });
      t.is(res.status, 404, `${method} ${path}: ${res.text}`);
      t.is(res.json.code, 'not_found');
    }
  }
  for (const bad of ['abc', '-1', '1.5', '0x10']) {
    const res = await session(bad as unknown as number);
    t.is(res.status, 400, res.text);
    t.is(res.json.code, 'invalid_id');
  }
});
