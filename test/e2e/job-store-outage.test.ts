import test from 'ava';
import sharp from 'sharp';
import type { JobSpec } from '@filigrane/core';
import { startTestS3Server, type TestS3Server } from '@filigrane/db';
import { evidencePlugin } from '@filigrane/plugin-evidence';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { JobRunner } from '@filigrane/server';
import { eventually, serveSite, startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';

// The S3 server down when a watermarking job runs: the job waits for it (retried after a delay
// that doubles, not at once as pg-boss would) and completes once the store is back; a store that
// stays down past the retries ends a watermarking and a search failed with 503 `blob_store_unavailable`, not
// a server fault. The API process has no workers; job runners in this process play the worker,
// with short delays, and are started only once the store is down (no race with its stop). An
// evidence pack waits the same way without spending its own build attempts.

const started: { s3?: TestS3Server; server?: TestServer } = {};
/** The S3 server and the API process (no workers) the tests share. */
const setUp = () => ({ s3: started.s3!, server: started.server! });
const runners: JobRunner[] = [];
test.before(async () => {
  const s3 = (started.s3 = await startTestS3Server('outage'));
  // The AWS SDK reads its credentials from the process's environment.
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION } = s3.env();
  Object.assign(process.env, { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION });
  started.server = await startTestServer({ plugins: ['watermarking', 'search', evidencePlugin], workers: false, env: s3.env('jobs') });
});
test.after.always(async () => {
  await Promise.all(runners.map((r) => r.stop().catch(() => undefined)));
  await started.server?.close();
  await started.s3?.close();
});


interface Line {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** A worker of the given queues (the plugins' own job specs), this process's log kept in `lines`. */
async function worker(lines: Line[], retries: number, delaySeconds: number, queues = ['watermarking.run', 'search.run']): Promise<JobRunner> {
  const sink = (level: string) => (fields: object, msg: string) => void lines.push({ level, ...fields, msg });
  const log = { error: sink('error'), warn: sink('warn'), info: sink('info'), debug: sink('debug') } as unknown as ConstructorParameters<typeof JobRunner>[3];
  const { server } = setUp();
  const runner = new JobRunner(server.databaseUrl, () => undefined, undefined, log);
  runner.storeRetries = retries;
  runner.storeRetrySeconds = delaySeconds;
  runners.push(runner);
  const specs = server.app.plugins.flatMap((p) => p.jobs?.(server.app.container) ?? []).filter((s) => queues.includes(s.queue)) as JobSpec<never>[];
  runner.declare(specs);
  await runner.work(specs.map((s) => ({ ...s, pollingIntervalSeconds: 0.5 })), queues);
  return runner;
}

/** GETs `path` until its status is complete or failed; `tick` runs before each look. */
function settled(account: TestAccount, label: string, path: string, tick?: () => Promise<unknown>) {
  return eventually(label, async () => {
    await tick?.();
    const s = (await account.call('GET', path)).json;
    return s.status === 'complete' || s.status === 'failed' ? s : null;
  }, 45_000);
}

async function submit(account: TestAccount, seed: number): Promise<{ url: string }> {
  const photo = await sharp(await syntheticPhoto(seed, 320, 240)).jpeg().toBuffer();
  const wm = await account.call('POST', '/api/v4/watermarking/', { json: { url: `data:image/jpeg;base64,${photo.toString('base64')}`, sync: false } });
  if (wm.status !== 201) throw new Error(`watermarking refused: ${wm.status} ${wm.text}`);
  return { url: new URL(wm.json.url).pathname };
}

test.serial('a watermarking job waits for the file store through an outage, then completes; a watermarking and a search whose store stays down end 503 blob_store_unavailable', async (t) => {
  t.timeout(90_000);
  const { s3, server } = setUp();
  const account = await server.createAccount('store-outage');
  const db = server.app.dataSource;
  const status = async (path: string) => (await account.call('GET', path)).json;

  // 1. Down for a moment: the first attempt fails, the job is put back with a delay, and it completes after.
  const first = await submit(account, 11);
  await s3.stop();
  const lines: Line[] = [];
  const runner = await worker(lines, 6, 3);
  const retry = await eventually('the first attempt to fail', async () => {
    const [row] = await db.query(
      `SELECT id, state, retry_count, retry_limit, output, extract(epoch FROM start_after - started_on) AS wait FROM pgboss.job WHERE name = 'watermarking.run'`,
    );
    return row?.state === 'retry' ? row : null;
  }, 30_000);
  // From the attempt's start: its few hundred ms, then 3 to 6 s of delay (pg-boss alone: none).
  t.true(Number(retry.wait) >= 2.5, `the retry waits for the store: ${retry.wait} s after the attempt began`);
  t.is(retry.output.code, 'blob_store_unavailable');
  t.true(retry.retry_limit >= 6, `retries for the outage: ${retry.retry_limit}`);
  t.like(await status(first.url), { status: 'running', error: null }, 'the watermarking is not failed meanwhile');
  const warned = lines.filter((l) => l.level === 'warn' && /file store is unreachable/.test(l.msg));
  t.is(warned.length, 1, JSON.stringify(lines));
  t.like(warned[0], { queue: 'watermarking.run', job: retry.id });
  t.false(lines.some((l) => l.level === 'error'), 'an outage that passes is no error in the log');

  await s3.resume();
  const done = await settled(account, 'the watermarking to complete', first.url);
  t.is(done.status, 'complete', JSON.stringify(done));
  const image = await fetch(done.result.watermarked, { headers: { authorization: `Token ${account.apiKey}` } });
  t.is(image.status, 200);
  t.like(await sharp(Buffer.from(await image.arrayBuffer())).metadata(), { width: 320, height: 240 }, 'the watermarked file, stored once the store was back');
  await runner.stop();

  // 2. Down for good: once their retries are used up, a watermarking and a search fail with the store's own error.
  const second = await submit(account, 12);
  const query = await syntheticPhoto(13, 320, 240);
  const search = await account.call('POST', '/api/v4/searches/', { json: { file: `data:image/png;base64,${query.toString('base64')}`, sync: false } });
  t.is(search.status, 201, search.text);
  await s3.stop();
  const lines2: Line[] = [];
  await worker(lines2, 1, 1);
  const failed = await settled(account, 'the watermarking to fail', second.url);
  t.like(failed, { status: 'failed', result: null, error: { status_code: 503, code: 'blob_store_unavailable' } }, JSON.stringify(failed));
  t.notRegex(failed.error.details, /s3:|outage\/|ECONNREFUSED/, 'no key nor address for the client');
  const searched = await settled(account, 'the search to fail', new URL(search.json.url).pathname);
  t.like(searched, { status: 'failed', error: { code: 'blob_store_unavailable' } }, JSON.stringify(searched));
  const forGood = lines2.filter((l) => l.level === 'error' && /failed for good/.test(l.msg));
  t.deepEqual(forGood.map((l) => l.queue).sort(), ['search.run', 'watermarking.run'], JSON.stringify(lines2));
  for (const l of forGood) t.regex(String(l.cause), /file store get \S+ failed/, 'the operators see the operation and the key');
  await s3.resume();
});

test.serial('an evidence pack waits for the file store through an outage without spending its build attempts; a store down for good ends it failed', async (t) => {
  t.timeout(90_000);
  const { s3, server } = setUp();
  const account = await server.createAccount('evidence-outage');
  const db = server.app.dataSource;
  const photo = await sharp(await syntheticPhoto(21, 320, 240)).jpeg({ quality: 90 }).toBuffer();
  const site = await serveSite({
    '/article.html': { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Article</title><img src="/img/photo.jpg">' },
    '/img/photo.jpg': { type: 'image/jpeg', body: photo },
  });
  t.teardown(() => site.close());
  const put = await account.call('PUT', '/api/v4/media/evidence-outage/photo.jpg', { body: photo, headers: { 'content-type': 'image/jpeg' } });
  t.is(put.status, 201, put.text);
  const mediaId = Number(/media-files\/(\d+)\//.exec(put.json.thumbnail)![1]);
  const match = async () => String((await server.get(MatchRecorder).record({
    sighting: { accountId: account.id, source: 'test', kind: 'web', image: {}, imageUrl: site.url('/img/photo.jpg'), page: { url: site.url('/article.html') } },
    mediaId, kind: 'web', watermarked: false, exclusive: null, query: { width: 320, height: 240, format: 'jpeg' },
  })).id);
  const pack = async (id: string) => (await account.call('GET', `/api/v4/evidence/${id}/`)).json;
  // The evidence queue's own retry delay (30 s, doubling) is kept through an outage: the test brings each retry forward.
  const hurry = () => db.query(`UPDATE pgboss.job SET start_after = now() WHERE name = 'evidence.build' AND state = 'retry'`);
  const ended = (id: string) => settled(account, 'the pack to end', `/api/v4/evidence/${id}/`, hurry);

  // 1. Down for longer than the pack's 3 build attempts: each try is put back, none counted; then it completes.
  const asked = await account.call('POST', '/api/v4/evidence/', { json: { matches: [await match()] } });
  t.is(asked.status, 202, asked.text);
  await s3.stop();
  const lines: Line[] = [];
  const runner = await worker(lines, 6, 1, ['evidence.build']);
  await eventually('three tries to fail', async () => {
    await hurry();
    const [row] = await db.query(`SELECT retry_count FROM pgboss.job WHERE name = 'evidence.build' AND data->>'packId' = $1`, [asked.json.id]);
    return row && row.retry_count >= 3 ? row : null;
  }, 40_000);
  t.like(await pack(asked.json.id), { status: 'pending', error: null }, 'the pack is not failed meanwhile');
  const [{ attempts }] = await db.query('SELECT attempts FROM evidence_packs WHERE id = $1', [asked.json.id]);
  t.true(attempts <= 1, `the outage spent none of the build's attempts: ${attempts}`);
  t.true(lines.some((l) => l.level === 'warn' && /file store is unreachable/.test(l.msg)), JSON.stringify(lines));
  await s3.resume();
  const done = await ended(asked.json.id);
  t.is(done.status, 'complete', JSON.stringify(done));
  await runner.stop();

  // 2. Down for good: once the outage's retries are used up, the pack ends failed with the store's message, no key.
  const second = await account.call('POST', '/api/v4/evidence/', { json: { matches: [await match()] } });
  t.is(second.status, 202, second.text);
  await s3.stop();
  await worker([], 1, 1, ['evidence.build']);
  const failed = await ended(second.json.id);
  t.like(failed, { status: 'failed' }, JSON.stringify(failed));
  t.regex(failed.error, /file store could not be reached/);
  t.notRegex(failed.error, /s3:|outage\/|ECONNREFUSED/, 'no key nor address for the client');
  await s3.resume();
});
