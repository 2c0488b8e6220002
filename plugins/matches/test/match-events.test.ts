import test from 'ava';
import { randomBytes } from 'node:crypto';
import { contribute, definePlugin, EVENT_LISTENERS, type DomainEvent, type Sighting } from '@filigrane/core';
import { createTestDatabase } from '@filigrane/db';
import { eventually, startTestServer } from '@filigrane/testing';
import { MatchRecorder } from '@filigrane/plugin-matches';

// match.* events go out through the platform's outbox: written with the match in one transaction,
// delivered by jobs. Neither a failing listener nor a process that dies between the insert and the
// delivery loses one. Credit matches need no media, which keeps these tests lean.

const sighting = (accountId: number, page: string): Sighting => ({
  accountId, source: 'test', kind: 'web', image: {}, imageUrl: 'https://img.example.com/a.jpg', page: { url: page }, credit: 'Studio',
});
const record = (recorder: MatchRecorder, s: Sighting) =>
  recorder.record({ sighting: s, mediaId: null, kind: 'credit', watermarked: false, exclusive: null, query: { width: 10, height: 10, format: 'jpeg' } });

function probe(name: string, fail = 0) {
  const seen: DomainEvent[] = [];
  let failures = fail;
  const plugin = definePlugin({
    id: name,
    contributions: [
      contribute(EVENT_LISTENERS, () => (e: DomainEvent) => {
        if (!e.type.startsWith('match.')) return;
        if (failures > 0) {
          failures--;
          throw new Error(`${name} is down`);
        }
        seen.push(e);
      }),
    ],
  });
  return { plugin, seen };
}

test('a failing listener is retried alone until it takes the event; the others get it once, in order per match', async (t) => {
  const flaky = probe('flaky-listener', 2);
  const steady = probe('steady-listener');
  const server = await startTestServer({ plugins: ['matches', flaky.plugin, steady.plugin], workers: true });
  t.teardown(() => server.close());
  const account = await server.createAccount('outboxer');
  const recorder = server.app.container.get(MatchRecorder);
  const s = sighting(account.id, 'https://news.example.com/1');
  const first = await record(recorder, s);
  const again = await record(recorder, s); // the same sighting: match.updated, after match.created
  t.is(first.id, again.id);

  const t0 = Date.now();
  await eventually('the steady listener', () => steady.seen.length >= 2, 20_000);
  t.log(`steady after ${Date.now() - t0} ms`);
  await eventually('the flaky listener after its retries', () => flaky.seen.length >= 2, 30_000);
  t.log(`flaky after ${Date.now() - t0} ms`);
  t.deepEqual(steady.seen.map((e) => e.type), ['match.created', 'match.updated']);
  t.deepEqual(flaky.seen.map((e) => e.type), ['match.created', 'match.updated'], 'the update waited for the created event of its match');
  t.deepEqual(flaky.seen.map((e) => e.id), steady.seen.map((e) => e.id), 'the same outbox events');
  t.like(steady.seen[0]!.data, { id: String(first.id), kind: 'credit', page_url: 'https://news.example.com/1' });
  const rows: { attempts: number; delivered: boolean; delivered_to: string[] }[] = await server.app.dataSource.query(
    'SELECT attempts, delivered_at IS NOT NULL AS delivered, delivered_to FROM event_outbox ORDER BY id',
  );
  t.true(rows.every((r) => r.delivered && r.delivered_to.includes('flaky-listener') && r.delivered_to.includes('steady-listener')));
  t.true(rows[0]!.attempts >= 2, 'the first event needed retries');
  // The steady listener was not called again on the retries.
  t.is(steady.seen.length, 2);
});

test('a process that dies between the insert and the delivery loses no event: the next one delivers it', async (t) => {
  const db = await createTestDatabase();
  const masterKey = randomBytes(32);
  t.teardown(() => db.dispose());

  // An API-only process records the match, then dies before any delivery, and before its delivery job
  // was sent (the job is deleted: what a kill -9 right after the commit leaves).
  const dying = probe('listener');
  const first = await startTestServer({ databaseUrl: db.url, masterKey, plugins: ['matches', dying.plugin], workers: false });
  const account = await first.createAccount('crasher');
  const recorded = await record(first.app.container.get(MatchRecorder), sighting(account.id, 'https://news.example.com/crash'));
  await first.app.dataSource.query(`DELETE FROM pgboss.job WHERE name = 'core.events'`).catch(() => undefined);
  const pending: { n: number }[] = await first.app.dataSource.query('SELECT count(*)::int AS n FROM event_outbox WHERE delivered_at IS NULL');
  await first.close();
  t.is(dying.seen.length, 0, 'nothing was delivered by the process that died');
  t.is(pending[0]!.n, 1, 'the event was committed with the match');

  const next = probe('listener');
  const second = await startTestServer({ databaseUrl: db.url, masterKey, plugins: ['matches', next.plugin], workers: true });
  t.teardown(() => second.close());
  const t0 = Date.now();
  await eventually('the event after the restart', () => next.seen.length >= 1, 30_000);
  t.log(`delivered ${Date.now() - t0} ms after the restart`);
  t.is(next.seen[0]!.type, 'match.created');
  t.is(next.seen[0]!.data.id, String(recorded.id));
});
