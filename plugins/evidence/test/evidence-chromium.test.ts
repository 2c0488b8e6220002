import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { WARCParser } from 'warcio';
import { createBlobStore, startTestS3Server } from '@filigrane/db';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { syntheticPhoto } from '@filigrane/vision';
import { serveSite, startTestServer } from '@filigrane/testing';
import { evidencePlugin } from '../src/index.js';

// The real Chromium (Debian's /usr/bin/chromium) renders the copy's page for the pack: a full-page
// screenshot whose pixels show the page's CSS, every request of the browser fetched through the
// SSRF-safe fetcher (a private address refused) and recorded in the pack's WARC. It runs once, in
// the embedded-database suite (skipped when DATABASE_URL is set), with its own timeout. The packs
// go to a real S3 server (s3rver) here, so the blob store's other backend is exercised too.

const zipRead = (file: string, name: string) => execFileSync('unzip', ['-p', file, name], { maxBuffer: 256 * 1024 * 1024 });

(process.env.DATABASE_URL ? test.skip : test)('Chromium screenshots the page through the SSRF-safe fetcher; its requests are in the WARC; the pack is stored on S3', async (t) => {
  t.timeout(150_000);
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-evidence-chromium-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const photo = await sharp(await syntheticPhoto(12)).jpeg({ quality: 90 }).toBuffer();
  const paragraphs = Array.from({ length: 60 }, (_, i) => `<p>Paragraph ${i + 1} of a long article about the picture, with enough words to wrap over a few lines in a 1280-pixel viewport.</p>`).join('\n');
  const site = await serveSite({
    '/article.html': {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><html><head><title>Article</title><link rel="stylesheet" href="/style.css"></head><body>
        <h1>A story with a copied photo</h1><img id="copy" src="/img/photo.jpg" width="320">
        <img src="http://10.255.255.1/internal.png">${paragraphs}<div class="footer">end</div></body></html>`,
    },
    '/style.css': { type: 'text/css', body: 'body { background: #12ab34; margin: 0; font: 16px sans-serif; } .footer { height: 400px; }' },
    '/img/photo.jpg': { type: 'image/jpeg', body: photo },
  });
  t.teardown(() => site.close());
  const s3 = await startTestS3Server();
  t.teardown(() => s3.close());
  Object.assign(process.env, s3.env()); // the S3 client reads its credentials from the process environment
  const server = await startTestServer({ plugins: [evidencePlugin], env: s3.env('deployment') });
  t.teardown(() => server.close());
  const alice = await server.createAccount('alice');
  const put = await alice.call('PUT', '/api/v4/media/alice/photo.jpg', { body: photo, headers: { 'content-type': 'image/jpeg' } });
  t.is(put.status, 201, put.text);
  // The match as the pipeline records it (the crawl path is covered by evidence.test.ts).
  const recorded = await server.get(MatchRecorder).record({
    sighting: { accountId: alice.id, source: 'test', kind: 'web', image: {}, imageUrl: site.url('/img/photo.jpg'), page: { url: site.url('/article.html') } },
    mediaId: Number(/media-files\/(\d+)\//.exec(put.json.thumbnail)![1]), kind: 'web', watermarked: false, exclusive: null, query: { width: 320, height: 240, format: 'jpeg' },
  });

  const started = Date.now();
  const asked = await alice.call('POST', '/api/v4/evidence/', { json: { matches: [String(recorded.id)] } });
  t.is(asked.status, 202, asked.text);
  await server.drainJobs({ timeoutMs: 120_000 });
  const pack = (await alice.call('GET', `/api/v4/evidence/${asked.json.id}/`)).json;
  t.like(pack, { status: 'complete', contents: { screenshots: 1, screenshot_missing: null, time_stamp: null, time_stamp_missing: 'TSA_URL is not set' } });
  t.log(`pack with a Chromium screenshot: ${pack.size} bytes, ${Date.now() - started} ms from the request to complete`);
  const wacz = Buffer.from(await (await fetch(pack.download, { headers: { authorization: `Token ${alice.apiKey}` } })).arrayBuffer());
  const file = join(dir, 'pack.wacz');
  writeFileSync(file, wacz);
  const store = createBlobStore({ url: `s3://${s3.bucket}/deployment`, endpoint: s3.endpoint, forcePathStyle: true, dataDir: dir });
  t.true((await store.get(`evidence/${alice.id}/${pack.id}.wacz`))?.equals(wacz), 'the WACZ is the object in the S3 bucket');

  // The screenshot: a PNG of the whole page (taller than the viewport), painted with the page's CSS.
  const facts = JSON.parse(zipRead(file, 'evidence/facts.json').toString('utf8'));
  const shot = zipRead(file, facts.matches[0].screenshot.file);
  const meta = await sharp(shot).metadata();
  t.is(meta.format, 'png');
  t.is(meta.width, 1280);
  t.true(meta.height! > 2000, `full page: ${meta.height} px`);
  const { data } = await sharp(shot).extract({ left: 1270, top: meta.height! - 10, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
  t.deepEqual([...data.subarray(0, 3)], [0x12, 0xab, 0x34], 'the stylesheet was fetched and applied');
  t.regex(facts.matches[0].screenshot.browser, /^Chromium \d+/);

  // Every request of the browser went through the fetcher and is in the WARC; the private address was refused.
  t.true(site.requests.some((r) => r.path === '/style.css'));
  const urls: string[] = [];
  for await (const record of new WARCParser(Readable.from([zipRead(file, 'archive/capture.warc.gz')]))) if (record.warcType === 'response') urls.push(record.warcTargetURI ?? '');
  for (const p of ['/article.html', '/style.css', '/img/photo.jpg']) t.true(urls.includes(site.url(p)), p);
  t.like(facts.failed_fetches.find((f: { url: string }) => f.url.includes('10.255.255.1')), { error: 'address_not_allowed' });
  t.is(site.requests.filter((r) => r.path === '/img/photo.jpg').length, 1, 'fetched once for the page, the image and the browser');
  t.like(facts.time_stamp, { authority: null });
});
