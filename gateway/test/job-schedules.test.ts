import test from 'ava';
import { definePlugin, ManualClock, TOKENS, type JobQueue } from '@filigrane/core';
import { authPlugin } from '@filigrane/plugin-auth';
import { startTestServer } from './support/test-server.js';

// JobQueue.schedule(): cron schedules a plugin makes at run time, sent by the core.schedules job.
// The clock is a ManualClock and the sweep is called as the job calls it, so no test waits a minute.
test('schedule(): runs when due, once per due time, per key, in a time zone; replaced, unscheduled, never sent twice', async (t) => {
  const clock = new ManualClock(new Date('2031-03-01T09:00:00Z'));
  const ticks: { n: number }[] = [];
  const probe = definePlugin({ id: 'probe', jobs: () => [{ queue: 'probe.tick', pollingIntervalSeconds: 0.5, handler: async (data: { n: number }) => void ticks.push(data) }] });
  const server = await startTestServer({ plugins: [authPlugin, probe], clock, workers: true });
  t.teardown(() => server.close());
  const jobs = server.app.container.get<JobQueue>(TOKENS.JobQueue);
  const sweep = () => server.app.jobs.sendDueSchedules(clock.now());
  const at = async (iso: string) => {
    clock.advance(new Date(iso).getTime() - clock.now().getTime());
    const sent = await sweep();
    await server.app.jobs.drain();
    return sent;
  };

  await jobs.schedule('probe.tick', '*/5 * * * *', { n: 1 }, { key: 'a', from: clock.now() });
  await jobs.schedule('probe.tick', '0 * * * *', { n: 2 }, { key: 'b', from: clock.now() });
  const bad = await t.throwsAsync(jobs.schedule('probe.tick', 'every minute', {}, { key: 'c' }));
  t.is((bad as { code?: string }).code, 'invalid_schedule');
  await t.throwsAsync(jobs.schedule('probe.tick', '* * * * *', {}, { key: 'c', tz: 'Mars/Olympus' }), { message: /time zone "Mars\/Olympus"/ });

  t.is(await at('2031-03-01T09:04:59Z'), 0, 'not yet due');
  t.is(await at('2031-03-01T09:05:00Z'), 1);
  t.deepEqual(ticks, [{ n: 1 }]);
  t.is(await at('2031-03-01T09:05:30Z'), 0, 'a due time is sent once');
  // Two workers sweeping at once: the row lock sends each run once.
  clock.advance(new Date('2031-03-01T09:10:00Z').getTime() - clock.now().getTime());
  const both = await Promise.all([sweep(), sweep()]);
  t.is(both[0] + both[1], 1);
  await server.app.jobs.drain();
  // Missed runs (no worker between 09:15 and 10:00) are sent once, not once per missed slot.
  t.is(await at('2031-03-01T10:00:00Z'), 2);
  t.deepEqual(ticks.map((x) => x.n).sort(), [1, 1, 1, 2]);

  // Scheduling a key again replaces it; unschedule removes it.
  await jobs.schedule('probe.tick', '30 10 * * *', { n: 3 }, { key: 'a', from: clock.now() });
  t.is(await at('2031-03-01T10:05:00Z'), 0, 'the old */5 schedule of key a is gone');
  t.true(await jobs.unschedule('probe.tick', 'b'));
  t.false(await jobs.unschedule('probe.tick', 'b'));
  t.is(await at('2031-03-01T11:00:00Z'), 1, 'key a at 10:30, key b no more');
  t.is(ticks.at(-1)!.n, 3);

  // 09:00 in Paris is 08:00 UTC in March.
  await jobs.schedule('probe.tick', '0 9 * * *', { n: 4 }, { key: 'paris', tz: 'Europe/Paris', from: new Date('2031-03-02T00:00:00Z') });
  t.is(await at('2031-03-02T07:59:00Z'), 0);
  t.is(await at('2031-03-02T08:00:00Z'), 1);
  t.is(ticks.at(-1)!.n, 4);
});
