import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOKENS, type BlobStore, type JobSpec } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { FFMPEG } from '@filigrane/video';
import { blobKeys } from '../src/media.service.js';

// A job whose every attempt fails (here: a video whose stored file went missing, so the
// fingerprinting throws each time) is failed for good by pg-boss once its retries are used up; the
// runner's final-failure hook then makes the record the user sees say `failed`. Before, the video
// said `pending` forever. Fast (a few seconds) and runs in both suites: no process is killed.

let server: TestServer | undefined;
test.after.always(async () => server?.close());

test('a video job that fails at every attempt ends with the video failed, through the REST API', async (t) => {
  t.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-final-failure-'));
  const clip = join(dir, 'clip.mp4');
  execFileSync(FFMPEG, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10', '-t', '1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', clip]);
  // Workers start after the file is gone, so that no attempt can see it.
  server = await startTestServer({ plugins: ['media'], workers: false });
  const { apiKey: key } = await server.createAccount('vf');
  const put = await server.call('PUT', '/api/v4/media/vf/clip.mp4', { key, body: readFileSync(clip), headers: { 'content-type': 'video/mp4' } });
  t.is(put.status, 201, put.text);
  t.is(put.json.video.status, 'pending');
  const id = Number(/media-files\/(\d+)\//.exec(put.json.video.thumbnail)![1]);
  await server.get<BlobStore>(TOKENS.BlobStore).delete(blobKeys(id).original);

  const media = server.app.plugins.find((p) => p.id === 'media')!;
  await server.app.jobs.work(media.jobs!(server.app.container) as JobSpec<never>[]);
  let video: { status: string; error?: string } = put.json.video;
  for (const until = Date.now() + 45_000; video.status === 'pending' && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 250));
    video = (await server.call('GET', '/api/v4/media/vf/clip.mp4', { key })).json.video;
  }
  t.is(video.status, 'failed', 'the video no longer says pending');
  t.regex(video.error ?? '', /tried several times/);

  // pg-boss ran it 1 + retry_limit times before it gave up, and the hook ran once.
  const [job] = await server.app.dataSource.query(`SELECT state, retry_count, retry_limit FROM pgboss.job WHERE name = 'media.video'`);
  t.like(job, { state: 'failed' });
  t.is(job.retry_count, job.retry_limit, 'every retry was used');
  t.true(job.retry_limit >= 1);
  await server.drainJobs({ queues: ['media.video'], timeoutMs: 20_000 });
  const [hook] = await server.app.dataSource.query(`SELECT state FROM pgboss.job WHERE name = 'media.video.final-failure'`);
  t.is(hook?.state, 'completed');

  // GraphQL tells the same.
  const gql = await server.call('POST', '/graphql', { key, json: { query: '{ media(path: "/vf/clip.mp4") { video { status error } } }' } });
  t.like(gql.json.data?.media?.video, { status: 'failed' });
});
