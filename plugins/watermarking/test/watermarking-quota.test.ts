import test from 'ava';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';

// Workers off: submitted watermarkings stay pending, so the per-account bounds can be observed.
let server: TestServer;
let image: Buffer;

test.before(async () => {
  server = await startTestServer({ plugins: ['watermarking'], workers: false });
  image = await syntheticPhoto(3, 320, 240);
});
test.after.always(async () => server?.close());

const submit = (key: string) => server.call('POST', '/api/v4/watermarking/?sync=false', { key, body: image, headers: { 'content-type': 'image/png' } });

test('watermarking assets count in disk_usage and against disk_quota', async (t) => {
  const { apiKey: key } = await server.createAccount('wmquota', { diskQuota: image.length * 3 });
  const first = await submit(key);
  t.is(first.status, 201, first.text);
  t.is((await server.call('GET', '/api/v4/account/', { key })).json.disk_usage, 2 * image.length, 'the original and its watermarked copy');
  const refused = await submit(key);
  t.is(refused.status, 403);
  t.is(refused.json.code, 'quota_exceeded');
  t.is((await server.call('GET', '/api/v4/account/', { key })).json.disk_usage, 2 * image.length, 'a refused request counts nothing');
});

test('at most WATERMARKING_MAX_ACTIVE (4) pending watermarkings per account: 429 with Retry-After', async (t) => {
  const { apiKey: key } = await server.createAccount('wmactive');
  for (let i = 0; i < 4; i++) t.is((await submit(key)).status, 201);
  const fifth = await submit(key);
  t.is(fifth.status, 429);
  t.is(fifth.json.code, 'too_many_watermarkings');
  t.truthy(fifth.headers.get('retry-after'));
  const { apiKey: other } = await server.createAccount('wmother');
  t.is((await submit(other)).status, 201, 'another account is not affected');
});
