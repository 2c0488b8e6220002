import test from 'ava';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { ManualClock, TOKENS, type BlobStore } from '@filigrane/core';
import { AccountService } from '@filigrane/plugin-account';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getSharp, jpegChromaSubsampling } from '@filigrane/vision';
import { decodeLmk, detect } from '@filigrane/watermark';
import { WatermarkingService } from '../src/index.js';
import { dataUri, pixels, pollUntilDone, serveFile, testImage } from './support/fixtures.js';

// One server with workers and a hand-moved clock. Tests are serial: the expiry test moves the
// shared clock, and the machine is small.
const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
let server: TestServer;
let alice: { apiKey: string; id: number; username: string };
let bob: { apiKey: string; id: number; username: string };

test.before(async () => {
  // The rate windows follow the injected clock, which stands still: lift the per-second limit.
  server = await startTestServer({ plugins: ['watermarking'], workers: true, env: { FETCH_ALLOW_HOSTS: '' }, clock, config: { rateLimit: { perSecond: 1_000_000, perDay: 10_000_000 } } });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
});
test.after.always(async () => server?.close());

const path = (url: string) => new URL(url).pathname;
const png = (body: Buffer, key: string, query = '') =>
  server.call('POST', `/api/v4/watermarking/${query}`, { key, body, headers: { 'content-type': 'image/png' } });

test.serial('binary sync: 200 with working URLs; the watermark is detected with the sealed registration', async (t) => {
  const original = await testImage('png');
  const res = await png(original, alice.apiKey);
  t.is(res.status, 200, res.text);
  t.deepEqual(Object.keys(res.json).sort(), ['expiry', 'original', 'registration', 'watermarked']);
  t.is(res.json.expiry, '2026-03-02T10:00:00.000Z', '24 h by default, from the injected clock');
  t.true(res.json.original.startsWith(`${server.url}/api/v4/watermarking/`), 'absolute URLs');

  const orig = await server.call('GET', path(res.json.original), { key: alice.apiKey });
  t.is(orig.status, 200);
  t.is(orig.headers.get('content-type'), 'image/png');
  const origBytes = Buffer.from(await (await fetch(res.json.original, { headers: { authorization: `Token ${alice.apiKey}` } })).arrayBuffer());
  t.true(origBytes.equals(original), 'the original is returned byte for byte');

  const wmRes = await fetch(res.json.watermarked, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.is(wmRes.headers.get('content-type'), 'image/png', 'same format as the input');
  const watermarked = Buffer.from(await wmRes.arrayBuffer());
  const [a, b] = [await pixels(original), await pixels(watermarked)];
  t.is(a.length, b.length, 'same size');
  let changed = 0;
  let sse = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) changed++;
    sse += (a[i]! - b[i]!) ** 2;
  }
  const psnr = 10 * Math.log10((255 * 255) / (sse / a.length));
  t.true(changed > a.length / 10, 'pixels changed');
  t.true(psnr > 40 && psnr < 60, `PSNR ${psnr.toFixed(1)} dB near the 44 dB target`);

  const lmkRes = await fetch(res.json.registration, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.is(lmkRes.headers.get('content-type'), 'application/lmk');
  const lmk = Buffer.from(await lmkRes.arrayBuffer());
  const registration = decodeLmk(lmk, await server.app.container.get(AccountService).privateKey(alice.id));
  t.is(registration.mode, 'normal');
  t.is(registration.key.length, 32, '256-bit key');
  t.deepEqual(registration.original, { width: 320, height: 240, format: 'png' });
  t.true((await detect(watermarked, registration)).watermarked, 'the watermarked image is detected');
  t.false((await detect(original, registration)).watermarked, 'the original is not');
  t.throws(() => decodeLmk(lmk, Buffer.alloc(0)), undefined, 'sealed: useless without the account key');
});

test.serial('a Display P3 progressive 4:4:4 JPEG comes back in P3, 4:4:4, progressive, >= 44 dB and no colour shift as ImageMagick measures it', async (t) => {
  const w = 480;
  const h = 360;
  const rgb = await getSharp()(await testImage('png', w, h, 21)).raw().toBuffer();
  const original = await getSharp()(rgb, { raw: { width: w, height: h, channels: 3 } })
    .withIccProfile('p3')
    .jpeg({ quality: 90, chromaSubsampling: '4:4:4', progressive: true })
    .toBuffer();
  const res = await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, body: original, headers: { 'content-type': 'image/jpeg' } });
  t.is(res.status, 200, res.text);
  const watermarked = Buffer.from(await (await fetch(res.json.watermarked, { headers: { authorization: `Token ${alice.apiKey}` } })).arrayBuffer());
  const meta = await getSharp()(watermarked).metadata();
  t.deepEqual(meta.icc, (await getSharp()(original).metadata()).icc, 'the P3 profile is kept');
  t.true(meta.isProgressive);
  t.is(jpegChromaSubsampling(watermarked), '4:4:4');
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-wm-'));
  const [a, b] = [join(dir, 'a.jpg'), join(dir, 'b.jpg')];
  writeFileSync(a, original);
  writeFileSync(b, watermarked);
  let out: string;
  try {
    out = execFileSync('compare', ['-metric', 'PSNR', a, b, 'null:'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    out = String((err as { stderr: Buffer }).stderr);
  }
  const psnr = Number(out.trim().split(/\s/)[0]);
  t.true(psnr >= 44, `compare PSNR ${psnr}`);
  const means = (f: string) => execFileSync('identify', ['-format', '%[fx:255*mean.r] %[fx:255*mean.g] %[fx:255*mean.b]', f], { encoding: 'utf8' }).split(' ').map(Number);
  const shift = means(b).map((v, i) => v - means(a)[i]!);
  t.true(shift.every((d) => Math.abs(d) < 0.5), `mean shift ${shift.join('/')}`);
});

test.serial('JSON with a data URI: 200; a JPEG stays a JPEG; each image gets its own key', async (t) => {
  const jpeg = await testImage('jpeg', 320, 240, 7);
  const one = await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, json: { url: dataUri(jpeg, 'image/jpeg'), timeout: 60 } });
  t.is(one.status, 200, one.text);
  const wm = await fetch(one.json.watermarked, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.is(wm.headers.get('content-type'), 'image/jpeg');
  t.is((await pixels(Buffer.from(await wm.arrayBuffer()))).length, 320 * 240 * 3);

  const two = await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, json: { url: dataUri(jpeg, 'image/jpeg'), sync: true } });
  t.is(two.status, 200);
  const priv = await server.app.container.get(AccountService).privateKey(alice.id);
  const keyOf = async (url: string) => decodeLmk(Buffer.from(await (await fetch(url, { headers: { authorization: `Token ${alice.apiKey}` } })).arrayBuffer()), priv).key;
  t.false((await keyOf(one.json.registration)).equals(await keyOf(two.json.registration)), 'a fresh key per watermarking');
});

test.serial('a loopback URL is refused (SSRF) unless allow-listed', async (t) => {
  const served = await serveFile(await testImage('png'), 'image/png');
  try {
    const res = await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, json: { url: served.url } });
    t.is(res.status, 400);
    t.is(res.json.code, 'fetch_address_not_allowed');
    const scheme = await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, json: { url: 'file:///etc/passwd' } });
    t.is(scheme.status, 400);
    t.is(scheme.json.code, 'fetch_scheme_not_allowed');
  } finally {
    await served.close();
  }
});

test.serial('async: 201 with a pollable status and Location, complete later with the result', async (t) => {
  const res = await png(await testImage('png', 320, 240, 3), alice.apiKey, '?sync=false');
  t.is(res.status, 201, res.text);
  t.is(res.headers.get('location'), res.json.url);
  t.like(res.json, { status: 'pending', result: null, error: null, created: '2026-03-01T10:00:00.000Z', expiry: '2026-03-02T10:00:00.000Z' });
  t.regex(res.json.id, /^[0-9a-f-]{36}$/);
  t.is(res.json.url, `${server.url}/api/v4/watermarking/${res.json.id}/`);

  const done = await pollUntilDone(server, res.json.url, alice.apiKey);
  t.is(done.json.status, 'complete');
  t.deepEqual(Object.keys(done.json.result).sort(), ['expiry', 'original', 'registration', 'watermarked']);
  t.is((await server.call('GET', path(done.json.result.watermarked), { key: alice.apiKey })).status, 200);

  const list = await server.call('GET', '/api/v4/watermarking/', { key: alice.apiKey });
  t.is(list.status, 200);
  t.true(list.json.results.some((j: { id: string }) => j.id === res.json.id));
  t.is((await server.call('GET', '/api/v4/watermarking/', { key: bob.apiKey })).json.count, 0, 'lists are per account');
});

test.serial('request errors: validation 400, wrong type 415, empty 411, not an image 415, corrupt image 422', async (t) => {
  const post = (json: unknown) => server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, json });
  const unknown = await post({ url: 'https://example.com/a.jpg', colour: 'red' });
  t.is(unknown.status, 400);
  t.deepEqual(unknown.json.errors.map((e: { field: string; code: string }) => [e.field, e.code]), [['colour', 'unknown_field']]);
  t.deepEqual((await post({})).json.errors.map((e: { code: string }) => e.code), ['required']);
  for (const timeout of [0, 601, 1.5, '30']) t.is((await post({ url: 'https://example.com/a.jpg', timeout })).json.details.timeout?.length, 1, `timeout ${timeout}`);
  t.is((await post({ url: 'https://example.com/a.jpg', sync: 'yes' })).status, 400);
  t.is((await png(await testImage('png'), alice.apiKey, '?timeout=abc')).status, 400);

  t.is((await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, body: 'x', headers: { 'content-type': 'text/plain' } })).status, 415);
  t.is((await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, body: Buffer.alloc(0), headers: { 'content-type': 'image/png' } })).status, 411);

  const notImage = await png(Buffer.from('this is not a picture at all'), alice.apiKey);
  t.is(notImage.status, 415);
  t.is(notImage.json.code, 'unsupported_format');
  // A CMYK JPEG (made for print) cannot carry the mark in its own colour space: the error says what to do.
  const cmyk = await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, body: await getSharp()(await testImage('png')).toColourspace('cmyk').jpeg().toBuffer(), headers: { 'content-type': 'image/jpeg' } });
  t.is(cmyk.status, 415, cmyk.text);
  t.like(cmyk.json, { status_code: 415, code: 'unsupported_format' });
  t.regex(cmyk.json.details, /CMYK.*convert them to RGB/);
  const tiny = await png(await testImage('png', 16, 16), alice.apiKey);
  t.is(tiny.status, 422);
  t.is(tiny.json.code, 'image_too_small');

  // A valid header over truncated pixel data passes the request's check and fails in the job:
  // the synchronous caller gets the job's error, and the failed job keeps it for pollers.
  const full = await testImage('png', 320, 240, 5);
  const truncated = full.subarray(0, Math.floor(full.length / 2));
  const sync = await png(truncated, alice.apiKey);
  t.is(sync.status, 422, sync.text);
  t.is(sync.json.code, 'corrupt_image');
  const queued = await png(truncated, alice.apiKey, '?sync=false');
  const failed = await pollUntilDone(server, queued.json.url, alice.apiKey);
  t.like(failed.json, { status: 'failed', result: null, error: { status_code: 422, code: 'corrupt_image' } });
  t.is((await server.call('GET', path(`${queued.json.url}watermarked`), { key: alice.apiKey })).status, 409, 'no watermarked image for a failed job');
  // GraphQL gives the same error body as a typed object.
  const gql = await server.call('POST', '/graphql', { key: alice.apiKey, json: { query: `{ watermarkingJob(id: "${queued.json.id}") { status error { statusCode code details errors { field } } } }` } });
  t.deepEqual(gql.json.data.watermarkingJob, { status: 'failed', error: { statusCode: 422, code: 'corrupt_image', details: failed.json.error.details, errors: [] } });
});

test.serial('another account gets 404 for the status, the assets and the registration URL', async (t) => {
  const res = await png(await testImage('png', 320, 240, 11), alice.apiKey);
  t.is(res.status, 200);
  const id = path(res.json.original).split('/')[4];
  for (const url of [`/api/v4/watermarking/${id}/`, path(res.json.original), path(res.json.watermarked), path(res.json.registration)]) {
    const other = await server.call('GET', url, { key: bob.apiKey });
    t.is(other.status, 404, url);
    t.is(other.json.code, 'not_found');
    t.is((await server.call('GET', url, { key: alice.apiKey })).status, 200, url);
  }
  t.is((await server.call('GET', '/api/v4/watermarking/not-a-uuid/', { key: alice.apiKey })).status, 404);
  t.is((await server.call('GET', `/api/v4/watermarking/${id}/secret`, { key: alice.apiKey })).status, 404);
  t.is((await server.call('GET', path(res.json.original))).status, 401, 'credentials required');
  const gql = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: `{ watermarkingJob(id: "${id}") { status } }` } });
  t.is(gql.json.errors[0].extensions.status_code, 404);

  const stolen = await server.call('PUT', '/api/v4/media/bob/stolen.jpg', { key: bob.apiKey, json: { url: res.json.registration } });
  t.is(stolen.status, 422, 'another account cannot register from it either');
  t.is(stolen.json.code, 'fetch_http_error');
});

test.serial('the registration URL registers a watermarked media through the media PUT (no HTTP round trip)', async (t) => {
  const res = await png(await testImage('png', 320, 240, 13), alice.apiKey);
  const put = await server.call('PUT', '/api/v4/media/alice/holidays/x.jpg', { key: alice.apiKey, json: { url: res.json.registration, metadata: { 'user.credit': 'Alice' } } });
  t.is(put.status, 201, put.text);
  t.like(put.json, { path: '/alice/holidays/x.jpg', type: 'image', image: { type: 'registered', width: 320, height: 240, format: 'png', credit: 'Alice' } });
  const reg = await server.call('GET', path(put.json.image.url).replace(/image$/, 'registration'), { key: alice.apiKey });
  t.is(reg.status, 200, 'registered from a registration file: it has one');
});

test.serial('GraphQL: watermarkImage (sync and async) and watermarkingJob', async (t) => {
  const url = dataUri(await testImage('png', 320, 240, 17), 'image/png');
  const fields = 'id url status created finished expiry result { original watermarked registration expiry } error { statusCode code details }';
  const sync = await server.call('POST', '/graphql', { key: alice.apiKey, json: { query: `mutation($u: String!) { watermarkImage(url: $u) { ${fields} } }`, variables: { u: url } } });
  t.falsy(sync.json.errors, JSON.stringify(sync.json.errors));
  t.is(sync.json.data.watermarkImage.status, 'complete');
  t.is((await server.call('GET', path(sync.json.data.watermarkImage.result.registration), { key: alice.apiKey })).status, 200);

  const async = await server.call('POST', '/graphql', { key: alice.apiKey, json: { query: `mutation($u: String!) { watermarkImage(url: $u, sync: false) { ${fields} } }`, variables: { u: url } } });
  t.is(async.json.data.watermarkImage.status, 'pending');
  t.is(async.json.data.watermarkImage.result, null);
  await pollUntilDone(server, async.json.data.watermarkImage.url, alice.apiKey);
  const job = await server.call('POST', '/graphql', { key: alice.apiKey, json: { query: `{ watermarkingJob(id: "${async.json.data.watermarkImage.id}") { ${fields} } }` } });
  t.is(job.json.data.watermarkingJob.status, 'complete');

  const bad = await server.call('POST', '/graphql', { key: alice.apiKey, json: { query: 'mutation { watermarkImage(url: "x", timeout: 0) { id } }' } });
  t.is(bad.json.errors[0].extensions.status_code, 400);
  t.is(bad.json.errors[0].extensions.code, 'BAD_USER_INPUT');
  const unknown = await server.call('POST', '/graphql', { key: alice.apiKey, json: { query: '{ watermarkingJob(id: "00000000-0000-4000-8000-000000000000") { id } }' } });
  t.deepEqual([unknown.json.data.watermarkingJob, unknown.json.errors[0].extensions.code], [null, 'NOT_FOUND']);

  // The list, as REST lists it (GET /api/v4/watermarking/): same jobs, same order, paged by cursor.
  const rest = await server.call('GET', '/api/v4/watermarking/?page_size=100', { key: alice.apiKey });
  const page = (after: string | null) =>
    server.call('POST', '/graphql', {
      key: alice.apiKey,
      json: { query: `query($after: String) { watermarkingJobs(first: 2, after: $after) { nodes { ${fields} } pageInfo { hasNextPage endCursor } } }`, variables: { after } },
    });
  const listed: { id: string }[] = [];
  for (let after: string | null = null, i = 0; i < 50; i++) {
    const res = await page(after);
    t.falsy(res.json.errors, res.text);
    listed.push(...res.json.data.watermarkingJobs.nodes);
    if (!res.json.data.watermarkingJobs.pageInfo.hasNextPage) break;
    after = res.json.data.watermarkingJobs.pageInfo.endCursor;
  }
  t.true(rest.json.count > 2);
  t.deepEqual(listed.map((j) => j.id), rest.json.results.map((j: { id: string }) => j.id));
  const restJob = rest.json.results.find((j: { id: string }) => j.id === async.json.data.watermarkImage.id);
  t.deepEqual(listed.find((j) => j.id === restJob.id), job.json.data.watermarkingJob);
  t.like(job.json.data.watermarkingJob, { created: restJob.created, finished: restJob.finished, expiry: restJob.expiry, error: null });
  const zero = await server.call('POST', '/graphql', { key: alice.apiKey, json: { query: '{ watermarkingJobs(first: 0) { nodes { id } } }' } });
  t.is(zero.json.errors[0].extensions.code, 'BAD_USER_INPUT');
  t.deepEqual((await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: '{ watermarkingJobs { nodes { id } } }' } })).json.data.watermarkingJobs.nodes, [], 'per account');
});

test.serial('assets expire: 404 after the expiry date, and the purge job deletes rows and blobs', async (t) => {
  const res = await png(await testImage('png', 320, 240, 19), alice.apiKey);
  t.is(res.status, 200);
  const id = path(res.json.original).split('/')[4]!;
  const blobs = server.app.container.get<BlobStore>(TOKENS.BlobStore);
  const service = server.app.container.get(WatermarkingService);
  t.truthy(await blobs.get(`watermarking/${id}/watermarked`));

  clock.advance(24 * 3_600_000 - 1000);
  t.is(await service.purgeExpired(), 0, 'nothing expired yet');
  t.is((await server.call('GET', path(res.json.watermarked), { key: alice.apiKey })).status, 200);

  clock.advance(1000);
  const gone = await server.call('GET', path(res.json.watermarked), { key: alice.apiKey });
  t.is(gone.status, 404, 'gone at the expiry date, before any purge');
  t.is(gone.json.code, 'expired');
  t.is((await server.call('GET', `/api/v4/watermarking/${id}/`, { key: alice.apiKey })).json.code, 'expired');
  const put = await server.call('PUT', '/api/v4/media/alice/late.jpg', { key: alice.apiKey, json: { url: res.json.registration } });
  t.is(put.status, 422, 'an expired registration URL cannot be registered');

  t.true((await service.purgeExpired()) >= 1);
  for (const asset of ['original', 'watermarked', 'registration']) t.is(await blobs.get(`watermarking/${id}/${asset}`), null, asset);
  const after = await server.call('GET', `/api/v4/watermarking/${id}/`, { key: alice.apiKey });
  t.is(after.status, 404);
  t.is(after.json.code, 'not_found');
  t.is((await server.call('GET', '/api/v4/watermarking/', { key: alice.apiKey })).json.count, 0, 'every earlier job expired too');
});
