import test from 'ava';
import type { JobSpec } from '@filigrane/core';
import { JobRunner } from '@filigrane/server';
import { eventually, startTestServer, type TestServer } from '@filigrane/testing';

// A queue with `concurrency` runs its jobs in pg-boss batches. One job of a batch that throws must
// fail alone: pg-boss fails the whole batch when its callback throws, so the others (done, or still
// running) used to be retried too, and a slow one ran twice at once.

let server: TestServer | undefined;
const runners: JobRunner[] = [];
test.after.always(async () => {
  await Promise.all(runners.map((r) => r.stop().catch(() => undefined)));
  await server?.close();
});

test('a job that throws in a batch fails alone: the others run once each, none twice at once', async (t) => {
  t.timeout(60_000);
  server = await startTestServer({ plugins: [], workers: false });
  const calls = new Map<number, number>();
  const active = new Set<number>();
  let overlap = false;
  const spec = {
    queue: 'test.batch',
    concurrency: 8,
    pollingIntervalSeconds: 0.5,
    handler: async (data: { n: number }) => {
      calls.set(data.n, (calls.get(data.n) ?? 0) + 1);
      if (active.has(data.n)) overlap = true;
      active.add(data.n);
      try {
        // Job 0 throws at once; the others are still running when it does.
        if (data.n === 0) throw new Error('job 0 fails');
        await new Promise((r) => setTimeout(r, 300 + data.n * 50));
      } finally {
        active.delete(data.n);
      }
    },
  } as unknown as JobSpec<never>;
  const runner = new JobRunner(server.databaseUrl, () => undefined);
  runners.push(runner);
  await runner.sendMany('test.batch', Array.from({ length: 8 }, (_, n) => ({ n })));
  await runner.work([spec]);

  const db = server.app.dataSource;
  const states = await eventually('every job to end', async () => {
    const rows: { n: number; state: string }[] = await db.query(`SELECT (data->>'n')::int AS n, state FROM pgboss.job WHERE name = 'test.batch' ORDER BY 1`);
    return rows.length === 8 && rows.every((r) => r.state === 'completed' || r.state === 'failed') ? rows : null;
  }, 45_000);
  t.deepEqual(states.map((r) => r.state), ['failed', ...Array(7).fill('completed')], JSON.stringify(states));
  t.is(calls.get(0), 3, 'the failing job: its first run and pg-boss\'s two retries');
  for (let n = 1; n < 8; n++) t.is(calls.get(n), 1, `job ${n} ran once`);
  t.false(overlap, 'no job ran twice at once');
});
