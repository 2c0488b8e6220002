import test from 'ava';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { watermarkingJobs } from '../src/index.js';
import { dataUri, pollUntilDone, serveFile, testImage } from './support/fixtures.js';

// An API process without workers (as behind a load balancer with separate worker pools): jobs
// wait in pg-boss until a worker starts, which makes the sync timeout happen honestly. Loopback
// is allow-listed here, and the asset lifetime is configured to 2 hours.
let server: TestServer;
let alice: { apiKey: string };

test.before(async () => {
  server = await startTestServer({
    plugins: ['watermarking'],
    workers: false,
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1', WATERMARKING_TTL_HOURS: '2' },
  });
  alice = await server.createAccount('alice');
});
test.after.always(async () => server?.close());

test.serial('an allow-listed loopback URL is fetched; the configured lifetime sets the expiry', async (t) => {
  const served = await serveFile(await testImage('jpeg'), 'image/jpeg');
  try {
    const res = await server.call('POST', '/api/v4/watermarking/', { key: alice.apiKey, json: { url: served.url, sync: false } });
    t.is(res.status, 201, res.text);
    t.is(new Date(res.json.expiry).getTime() - new Date(res.json.created).getTime(), 2 * 3_600_000);
    const original = await server.call('GET', new URL(`${res.json.url}original`).pathname, { key: alice.apiKey });
    t.is(original.status, 200, 'the original is stored by the request itself');
    t.is(original.headers.get('content-type'), 'image/jpeg');
    t.is((await server.call('GET', new URL(`${res.json.url}registration`).pathname, { key: alice.apiKey })).status, 409, 'no registration before the job ran');
  } finally {
    await served.close();
  }
});

test.serial('sync timeout: 504 watermarking_timeout with the status URL; the job still finishes once a worker runs', async (t) => {
  const started = Date.now();
  const timedOut = await server.call('POST', '/api/v4/watermarking/?timeout=1', { key: alice.apiKey, body: await testImage('png', 320, 240, 2), headers: { 'content-type': 'image/png' } });
  const waited = Date.now() - started;
  t.is(timedOut.status, 504, timedOut.text);
  t.like(timedOut.json, { status_code: 504, code: 'watermarking_timeout' });
  t.is(timedOut.headers.get('location'), timedOut.json.url);
  t.is(timedOut.json.url, `${server.url}/api/v4/watermarking/${timedOut.json.id}/`);
  t.regex(timedOut.json.details, /within 1 s.*poll/);
  t.true(waited >= 1000 && waited < 10_000, `waited the timeout (${waited} ms), no more`);
  const pending = await server.call('GET', new URL(timedOut.json.url).pathname, { key: alice.apiKey });
  t.is(pending.json.status, 'pending');
  const gql = await server.call('POST', '/graphql', {
    key: alice.apiKey,
    json: { query: 'mutation($u: String!) { watermarkImage(url: $u, timeout: 1) { id status result { original } } }', variables: { u: dataUri(await testImage('gif'), 'image/gif') } },
  });
  t.like(gql.json.data.watermarkImage, { status: 'pending', result: null }, 'GraphQL: the job, still pending, to poll');

  // A worker comes up (here, in the same process): every queued job completes, nothing was lost.
  await server.app.jobs.work(watermarkingJobs(server.app.container));
  const done = await pollUntilDone(server, timedOut.json.url, alice.apiKey);
  t.is(done.json.status, 'complete', done.text);
  t.is((await server.call('GET', new URL(done.json.result.watermarked).pathname, { key: alice.apiKey })).status, 200);
  const list = await server.call('GET', '/api/v4/watermarking/', { key: alice.apiKey });
  for (const job of list.json.results) t.is((await pollUntilDone(server, job.url, alice.apiKey)).json.status, 'complete');
});
