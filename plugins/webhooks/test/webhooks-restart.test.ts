import test from 'ava';
import { randomBytes } from 'node:crypto';
import { TOKENS, type EventPublisher } from '@filigrane/core';
import { createTestDatabase } from '@filigrane/db';
import { startTestServer } from '@filigrane/testing';
import { eventually, Receiver, verifyStandardWebhook } from './receiver.js';

const env = { FETCH_ALLOW_HOSTS: '127.0.0.1', WEBHOOKS_RETRY_DELAYS: '1,1,1', WEBHOOKS_CONCURRENCY: '2' };

test('a restart in the middle of deliveries loses none: the next process delivers what is left', async (t) => {
  const db = await createTestDatabase();
  const masterKey = randomBytes(32);
  const receiver = await new Receiver().start();
  // A slow receiver, so that the first process stops with deliveries queued and in flight.
  receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 150));
  t.teardown(async () => {
    await receiver.close();
    await db.dispose();
  });

  const first = await startTestServer({ plugins: ['webhooks'], databaseUrl: db.url, masterKey, workers: true, env });
  const account = await first.createAccount('restarter');
  const created = await first.call('POST', '/api/v4/account/webhooks/', { key: account.apiKey, json: { url: receiver.url, events: ['match.created'] } });
  const { id, secret } = created.json;
  const events = first.app.container.get<EventPublisher>(TOKENS.Events);
  for (let i = 1; i <= 30; i++) await events.publish({ type: 'match.created', accountId: account.id, data: { id: i } });
  await eventually(() => receiver.received.length >= 2, 20_000, 'the first deliveries');
  await first.close();
  const before = new Set(receiver.ids()).size;
  t.true(before < 30, `the first process stopped before delivering everything (${before} of 30)`);

  const second = await startTestServer({ plugins: ['webhooks'], databaseUrl: db.url, masterKey, workers: true, env });
  t.teardown(() => second.close());
  await eventually(() => new Set(receiver.ids()).size === 30, 40_000, 'every delivery after the restart');
  const sentIds = new Set(receiver.received.map((r) => JSON.parse(r.body).data.id as number));
  t.is(sentIds.size, 30, 'every event arrived');
  t.true(receiver.received.every((r) => verifyStandardWebhook(secret, r.headers, r.body)), 'signed with the secret the restarted process unsealed');
  const log = await eventually(async () => {
    const page = (await second.call('GET', `/api/v4/account/webhooks/${id}/deliveries/?status=succeeded`, { key: account.apiKey })).json;
    return page.count === 30 ? page : undefined;
  }, 20_000, 'every delivery recorded as succeeded');
  t.is(log.count, 30);
});
