import test from 'ava';
import sharp from 'sharp';
import type { JobSpec } from '@filigrane/core';
import { JobRunner } from '@filigrane/server';
import { eventually, startTestServer, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';

// A watermarking whose worker dies at every attempt (a process frozen or killed -9: it stops
// renewing its job lease) is taken back by another process each time; after its retries pg-boss
// fails it for good, and the queue's final-failure hook makes the watermarking `failed` through the
// REST API (it used to stay `running` for ever). The dead workers are job runners in this process
// whose handler never returns and whose lease is never renewed; a third runner with a 2-second lease
// takes their jobs back, as any live worker process does. 10 to 18 seconds, so it runs in the
// DATABASE_URL suite only (CI's second run); the handler-failure path runs in both
// (plugins/media/test/video-final-failure.test.ts).

let server: TestServer | undefined;
const runners: JobRunner[] = [];
let release: () => void = () => undefined;
const hung = new Promise<void>((resolve) => (release = resolve));

test.after.always(async () => {
  release();
  await Promise.all(runners.map((r) => r.stop().catch(() => undefined)));
  await server?.close();
});


const dbTest = process.env.DATABASE_URL ? test : test.skip;

dbTest('a watermarking whose worker dies at every attempt ends failed, with the error body, once its retries are used up', async (t) => {
  t.timeout(90_000);
  server = await startTestServer({ plugins: ['watermarking'], workers: false });
  const account = await server.createAccount('dead-worker');
  const photo = await sharp(await syntheticPhoto(5, 320, 240)).jpeg().toBuffer();
  const wm = await account.call('POST', '/api/v4/watermarking/', { json: { url: `data:image/jpeg;base64,${photo.toString('base64')}`, sync: false } });
  t.is(wm.status, 201, wm.text);
  const status = async () => (await account.call('GET', new URL(wm.json.url).pathname)).json;

  // Three dead workers: each takes one attempt and never finishes it nor renews its lease.
  for (let i = 0; i < 3; i++) {
    const dead = new JobRunner(server.databaseUrl, () => undefined);
    dead.leaseSeconds = 3600;
    runners.push(dead);
    await dead.work([{ queue: 'watermarking.run', pollingIntervalSeconds: 0.5, handler: () => hung }] as JobSpec<never>[]);
  }
  // A live process (of another queue) takes back the jobs of processes silent for 2 s.
  const reaper = new JobRunner(server.databaseUrl, () => undefined);
  reaper.leaseSeconds = 2;
  runners.push(reaper);
  await reaper.work([{ queue: 'test.reaper', handler: async () => undefined }] as JobSpec<never>[]);

  const db = server.app.dataSource;
  const job = await eventually('the job to fail for good', async () => {
    const [row] = await db.query(`SELECT id, state, retry_count, retry_limit FROM pgboss.job WHERE name = 'watermarking.run'`);
    return row?.state === 'failed' ? row : null;
  }, 45_000);
  t.is(job.retry_count, job.retry_limit, 'taken back once per attempt');
  t.is((await status()).status, 'pending', 'nothing has told the watermarking yet (this is where it used to stay)');

  // A worker of the queue runs its final-failure hook; its process log is kept here.
  const lines: Record<string, unknown>[] = [];
  const sink = (level: string) => (fields: object, msg: string) => void lines.push({ level, ...fields, msg });
  const processLog = { error: sink('error'), warn: sink('warn'), info: sink('info'), debug: sink('debug') } as unknown as ConstructorParameters<typeof JobRunner>[3];
  const live = new JobRunner(server.databaseUrl, () => undefined, undefined, processLog);
  runners.push(live);
  const specs = server.app.plugins.find((p) => p.id === 'watermarking')!.jobs!(server.app.container) as JobSpec<never>[];
  live.declare(specs);
  await live.work(specs, ['watermarking.run']);
  const failed = await eventually('the watermarking to fail', async () => {
    const s = await status();
    return s.status === 'failed' ? s : null;
  }, 45_000);
  t.like(failed, { status: 'failed', result: null, error: { status_code: 500, code: 'server_error' } });
  t.regex(failed.error.details, /tried several times/);
  t.truthy(failed.finished);

  // The hook learnt which job and why (the cause stays in the operators' log, not in the body).
  const hook = await eventually('the hook job to complete', async () => {
    const [row] = await db.query(`SELECT state, output FROM pgboss.job WHERE name = 'watermarking.run.final-failure'`);
    return row?.state === 'completed' ? row : null;
  }, 45_000);
  t.is(hook.output.jobId, job.id);
  t.regex(hook.output.reason, /its worker process .* stopped/);
  t.notRegex(JSON.stringify(failed), /worker process/);
  // Logged at error once, with the job's id, its queue and the cause.
  const logged = lines.filter((l) => l.level === 'error' && /failed for good/.test(String(l.msg)));
  t.is(logged.length, 1, JSON.stringify(lines));
  t.like(logged[0], { queue: 'watermarking.run', job: job.id });
  t.regex(String(logged[0]!.cause), /its worker process .* stopped/);
});
