import test from 'ava';
import { gunzipSync } from 'node:zlib';
import { startTestS3Server, type TestS3Server } from '@filigrane/db';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { getSharp, syntheticPhoto } from '@filigrane/vision';
import { TestSite, waitFor, type Route } from './support/test-site.js';

// The S3 server stops mid-crawl and comes back: the pages and images the crawl could not keep are
// crawled again, never recorded as error pages that the batch (WARC, TAR) would lack.

const PAGES = 12;

let server: TestServer | undefined;
let site: TestSite | undefined;
let s3: TestS3Server | undefined;
test.after.always(async () => {
  await server?.close();
  await site?.close();
  await s3?.close().catch(() => undefined);
});

test('the file store down mid-crawl: what it could not keep is crawled again, the batch has every page and image', async (t) => {
  t.timeout(150_000);
  s3 = await startTestS3Server('crawl-outage');
  // The AWS SDK reads its credentials from the process's environment.
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION } = s3.env();
  Object.assign(process.env, { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION });
  const tiles = await Promise.all(Array.from({ length: PAGES }, async (_, i) => getSharp()(await syntheticPhoto(700 + i, 200, 150)).jpeg().toBuffer()));
  const slow = (body: string): Route => (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), 150);
  const routes: Record<string, Route> = { '/': slow(Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}.html">${i}</a>`).join('')) };
  for (let i = 0; i < PAGES; i++) {
    routes[`/p${i}.html`] = slow(`<h1>Page ${i}</h1><img src="/img${i}.jpg">`);
    routes[`/img${i}.jpg`] = (_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(tiles[i]);
  }
  site = await new TestSite(routes).start();
  server = await startTestServer({
    plugins: ['crawler'],
    env: { ...s3.env('x'), CRAWL_CLAIM_LEASE: '2', CRAWL_CONCURRENCY: '2' },
  });
  const { apiKey: key } = await server.createAccount('outage');
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: site.url('/'), download_delay: 0, search: false } });
  t.is(created.status, 201, created.text);

  const pagesFetched = () => site!.requests.filter((r) => r.path.startsWith('/p')).length;
  await waitFor('the first pages', async () => pagesFetched() >= 3);
  await s3.stop();
  const downAt = pagesFetched();
  await waitFor('pages fetched while the store is down', async () => pagesFetched() >= downAt + 3);
  await s3.resume();

  const done = await waitFor('the crawl', async () => {
    const s = (await server!.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
    return s.state === 'done' || s.state === 'failed' ? s : null;
  }, 120_000);
  t.is(done.state, 'done');
  const [batch] = (await server.call('GET', '/api/v3/crawling/batches/', { key })).json.results;
  t.is(batch.pages.count, PAGES + 1);
  t.is(batch.images.count, PAGES);
  const file = async (url: string) => Buffer.from(await (await fetch(url, { headers: { authorization: `Token ${key}` } })).arrayBuffer());
  const warc = gunzipSync(await file(batch.pages.warc)).toString('latin1');
  const targets = new Set([...warc.matchAll(/WARC-Target-URI: <?(\S+?)>?\r\n/g)].map((m) => m[1]));
  for (let i = 0; i < PAGES; i++) t.true(targets.has(site.url(`/p${i}.html`)) && targets.has(site.url(`/img${i}.jpg`)), `page ${i} and its image in the WARC`);
  const tar = (await file(batch.images.tar)).toString('latin1');
  t.is(new Set(tar.match(/img\d+\.jpg/g)).size, PAGES, 'every image in the TAR');
  const log = gunzipSync(await file(batch.pages.log)).toString('utf8');
  t.false(/file store/.test(log), 'no page logged as failed because of the store');
});
