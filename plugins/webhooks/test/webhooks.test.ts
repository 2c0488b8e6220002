import test from 'ava';
import { ManualClock, TOKENS, type EventPublisher } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { eventually, Receiver, verifyStandardWebhook } from './receiver.js';

let server: TestServer;
let clock: ManualClock;
const receivers: Receiver[] = [];

const receiver = async () => {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
};
const publish = (type: string, accountId: number, data: Record<string, unknown>) => server.app.container.get<EventPublisher>(TOKENS.Events).publish({ type, accountId, data });
const deliveries = async (key: string, endpointId: number, query = '') => (await server.call('GET', `/api/v4/account/webhooks/${endpointId}/deliveries/${query}`, { key })).json;

test.before(async () => {
  clock = new ManualClock(new Date('2026-11-20T08:00:00Z'));
  server = await startTestServer({ plugins: ['webhooks'], clock,
    workers: true,
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1', WEBHOOKS_RETRY_DELAYS: '1,1,1,1,1,1', WEBHOOKS_DISABLE_AFTER_HOURS: '48' }, });
});
test.after.always(async () => {
  await server?.close();
  for (const r of receivers) await r.close();
});

test.serial('register: the secret is shown once and stored encrypted; bad input is 400 naming the field', async (t) => {
  const { apiKey } = await server.createAccount('hooker');
  const r = await receiver();
  const res = await server.call('POST', '/api/v4/account/webhooks/', { key: apiKey, json: { url: r.url, events: ['match.created', 'search.completed'], description: 'CMS' } });
  t.is(res.status, 201, res.text);
  t.regex(res.json.secret, /^whsec_[A-Za-z0-9+/=]{32}$/);
  t.like(res.json, { url: r.url, events: ['match.created', 'search.completed'], enabled: true, disabled_reason: null, description: 'CMS' });

  const again = await server.call('GET', `/api/v4/account/webhooks/${res.json.id}/`, { key: apiKey });
  t.is(again.status, 200);
  t.false('secret' in again.json, 'the secret is never shown again');
  const list = await server.call('GET', '/api/v4/account/webhooks/', { key: apiKey });
  t.like(list.json, { count: 1, next: null, previous: null });
  t.false('secret' in list.json.results[0]);
  const [row] = await server.app.dataSource.query('SELECT secret_sealed FROM webhook_endpoints WHERE id = $1', [res.json.id]);
  t.false(row.secret_sealed.includes(res.json.secret.slice(6)), 'stored sealed, not in clear');

  const bad = await server.call('POST', '/api/v4/account/webhooks/', { key: apiKey, json: { url: 'ftp://example.com/', events: ['match.exploded'], colour: 'red' } });
  t.is(bad.status, 400);
  t.deepEqual(bad.json.errors.map((e: { field: string }) => e.field).sort(), ['colour', 'events', 'url']);
  const internal = await server.call('POST', '/api/v4/account/webhooks/', { key: apiKey, json: { url: 'http://10.1.2.3/hook', events: ['match.created'] } });
  t.is(internal.status, 400);
  t.is(internal.json.errors[0].code, 'address_not_allowed');
  t.is((await server.call('POST', '/api/v4/account/webhooks/', { key: apiKey, json: { url: r.url, events: [] } })).status, 400);
});

test.serial('a test ping and an event are signed per Standard Webhooks (checked with an independent HMAC)', async (t) => {
  const account = await server.createAccount('signed');
  const r = await receiver();
  const created = await server.call('POST', '/api/v4/account/webhooks/', { key: account.apiKey, json: { url: r.url, events: ['match.created'] } });
  const { id, secret } = created.json;

  const ping = await server.call('POST', `/api/v4/account/webhooks/${id}/test/`, { key: account.apiKey });
  t.is(ping.status, 200, ping.text);
  t.like(ping.json, { event_type: 'webhook.test', status: 'succeeded', attempts: 1, last_status_code: 204, last_error: null });
  t.is(r.received.length, 1);
  const got = r.received[0];
  t.true(verifyStandardWebhook(secret, got.headers, got.body));
  t.false(verifyStandardWebhook(secret, got.headers, got.body.replace('webhook.test', 'webhook.tesT')), 'a changed body fails');
  t.false(verifyStandardWebhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, got.headers, got.body), 'another secret fails');
  t.is(got.headers['webhook-id'], ping.json.id);
  t.is(got.headers['webhook-timestamp'], String(Math.floor(clock.now().getTime() / 1000)));
  t.is(got.headers['content-type'], 'application/json');

  await publish('match.created', account.id, { id: 77, kind: 'web' });
  await publish('match.updated', account.id, { id: 77 }); // not subscribed
  await eventually(() => r.received.length >= 2, 20_000, 'the match.created delivery');
  const event = r.received[1];
  t.true(verifyStandardWebhook(secret, event.headers, event.body));
  const body = JSON.parse(event.body);
  t.like(body, { type: 'match.created', data: { id: 77, kind: 'web' } });
  t.is(body.timestamp, clock.now().toISOString());
  const log = await eventually(async () => {
    const page = await deliveries(account.apiKey, id, '?status=succeeded');
    return page.count === 2 ? page : undefined;
  });
  t.deepEqual(log.results.map((d: { event_type: string }) => d.event_type).sort(), ['match.created', 'webhook.test']);
  t.is(r.received.length, 2, 'the unsubscribed match.updated was not sent');
});

test.serial('a receiver that fails then succeeds gets the same message again, with backoff, until it answers 2xx', async (t) => {
  const account = await server.createAccount('flaky');
  const r = await receiver();
  r.answer = (n) => (n <= 2 ? 503 : 200);
  const { id, secret } = (await server.call('POST', '/api/v4/account/webhooks/', { key: account.apiKey, json: { url: r.url, events: ['search.completed'] } })).json;
  await publish('search.completed', account.id, { id: 'abc', status: 'complete' });

  const done = await eventually(async () => {
    const page = await deliveries(account.apiKey, id);
    return page.results[0]?.status === 'succeeded' ? page.results[0] : undefined;
  }, 30_000, 'the retried delivery');
  t.is(r.received.length, 3);
  t.is(new Set(r.ids()).size, 1, 'one webhook-id on every attempt');
  t.true(r.received.every((got) => verifyStandardWebhook(secret, got.headers, got.body)));
  t.is(done.attempts, 3);
  t.deepEqual(done.attempt_log.map((a: { status_code: number }) => a.status_code), [503, 503, 200]);
  t.regex(done.attempt_log[0].error, /http_error/);
  const ep = await server.call('GET', `/api/v4/account/webhooks/${id}/`, { key: account.apiKey });
  t.is(ep.json.failing_since, null, 'a success clears the failure run');
});

test.serial('an endpoint failing for longer than the limit is disabled with a reason; re-enabling it works', async (t) => {
  const account = await server.createAccount('broken');
  const r = await receiver();
  r.answer = () => 500;
  const { id } = (await server.call('POST', '/api/v4/account/webhooks/', { key: account.apiKey, json: { url: r.url, events: ['watermarking.completed'] } })).json;
  await publish('watermarking.completed', account.id, { id: 'w1', status: 'complete' });
  await eventually(async () => (await server.call('GET', `/api/v4/account/webhooks/${id}/`, { key: account.apiKey })).json.failing_since, 20_000, 'the first failure');

  clock.advance(49 * 3_600_000); // two days and more of failures
  const disabled = await eventually(async () => {
    const ep = (await server.call('GET', `/api/v4/account/webhooks/${id}/`, { key: account.apiKey })).json;
    return ep.enabled ? undefined : ep;
  }, 20_000, 'the endpoint to be disabled');
  t.regex(disabled.disabled_reason, /every delivery has failed since 2026-11-2\dT.*http_error/);
  const log = await deliveries(account.apiKey, id);
  t.like(log.results[0], { status: 'failed', attempts: 2 });

  const sent = r.received.length;
  await publish('watermarking.completed', account.id, { id: 'w2', status: 'complete' });
  t.is((await deliveries(account.apiKey, id)).count, 1, 'a disabled endpoint gets no new deliveries');

  const enabled = await server.call('PATCH', `/api/v4/account/webhooks/${id}/`, { key: account.apiKey, json: { enabled: true } });
  t.like(enabled.json, { enabled: true, disabled_reason: null, failing_since: null });
  r.answer = () => 200;
  await publish('watermarking.completed', account.id, { id: 'w3', status: 'complete' });
  await eventually(async () => (await deliveries(account.apiKey, id, '?status=succeeded')).count === 1, 20_000, 'a delivery after re-enabling');
  t.is(r.received.length, sent + 1);
});

test.serial('accounts are isolated: another account sees, changes, pings and lists nothing of an endpoint, and gets none of its events', async (t) => {
  const owner = await server.createAccount('owner');
  const other = await server.createAccount('intruder');
  const mine = await receiver();
  const theirs = await receiver();
  const { id } = (await server.call('POST', '/api/v4/account/webhooks/', { key: owner.apiKey, json: { url: mine.url, events: ['match.created'] } })).json;
  await server.call('POST', '/api/v4/account/webhooks/', { key: other.apiKey, json: { url: theirs.url, events: ['match.created'] } });

  for (const [method, path] of [
    ['GET', `/api/v4/account/webhooks/${id}/`],
    ['PATCH', `/api/v4/account/webhooks/${id}/`],
    ['DELETE', `/api/v4/account/webhooks/${id}/`],
    ['POST', `/api/v4/account/webhooks/${id}/test/`],
    ['GET', `/api/v4/account/webhooks/${id}/deliveries/`],
  ] as const) {
    const res = await server.call(method, path, { key: other.apiKey, ...(method === 'PATCH' ? { json: { description: 'mine now' } } : {}) });
    t.is(res.status, 404, `${method} ${path}`);
    t.like(res.json, { status_code: 404, code: 'not_found' });
  }
  t.deepEqual((await server.call('GET', '/api/v4/account/webhooks/', { key: other.apiKey })).json.results.map((e: { url: string }) => e.url), [theirs.url]);
  const gql = await server.call('POST', '/graphql', { key: other.apiKey, json: { query: `{ webhookDeliveries(endpointId: "${id}") { id } }` } });
  t.is(gql.json.errors[0].extensions.status_code, 404);

  await publish('match.created', owner.id, { id: 1 });
  await eventually(() => mine.received.length === 1, 20_000, 'the owner\'s delivery');
  t.is(theirs.received.length, 0, 'the other account\'s endpoint never sees the owner\'s events');
  t.is((await server.call('DELETE', `/api/v4/account/webhooks/${id}/`, { key: owner.apiKey })).status, 204);
  t.is((await server.call('GET', `/api/v4/account/webhooks/${id}/`, { key: owner.apiKey })).status, 404);
});

test.serial('GraphQL: create, list endpoints and deliveries, ping, delete', async (t) => {
  const account = await server.createAccount('grapher');
  const r = await receiver();
  const q = (query: string) => server.call('POST', '/graphql', { key: account.apiKey, json: { query } });
  const created = await q(`mutation { createWebhookEndpoint(url: "${r.url}", events: ["match.updated"]) { id secret enabled events } }`);
  t.truthy(created.json.data, created.text);
  const ep = created.json.data.createWebhookEndpoint;
  t.regex(ep.secret, /^whsec_/);
  const ping = await q(`mutation { testWebhookEndpoint(id: "${ep.id}") { id status lastStatusCode eventType } }`);
  t.like(ping.json.data.testWebhookEndpoint, { status: 'succeeded', lastStatusCode: 204, eventType: 'webhook.test' });
  t.true(verifyStandardWebhook(ep.secret, r.received[0].headers, r.received[0].body));
  const listed = await q(`{ webhookEndpoints { id url } webhookDeliveries(endpointId: "${ep.id}") { id status payload } }`);
  t.deepEqual(listed.json.data.webhookEndpoints, [{ id: ep.id, url: r.url }]);
  t.is(listed.json.data.webhookDeliveries.length, 1);
  t.is(JSON.parse(listed.json.data.webhookDeliveries[0].payload).type, 'webhook.test');
  const bad = await q(`mutation { createWebhookEndpoint(url: "${r.url}", events: ["nope"]) { id } }`);
  t.is(bad.json.errors[0].extensions.status_code, 400);

  // updateWebhookEndpoint: the PATCH, with its validation and its 404.
  const fields = 'id url events description enabled disabledReason';
  const updated = await q(`mutation { updateWebhookEndpoint(id: "${ep.id}", events: ["match.updated", "match.created"], description: "dash", enabled: false) { ${fields} } }`);
  t.deepEqual(updated.json.data?.updateWebhookEndpoint, { id: ep.id, url: r.url, events: ['match.updated', 'match.created'], description: 'dash', enabled: false, disabledReason: 'Disabled by the account.' }, updated.text);
  const rest = await server.call('GET', `/api/v4/account/webhooks/${ep.id}/`, { key: account.apiKey });
  t.like(rest.json, { events: ['match.updated', 'match.created'], description: 'dash', enabled: false });
  const kept = await q(`mutation { updateWebhookEndpoint(id: "${ep.id}", enabled: true) { ${fields} } }`);
  t.like(kept.json.data.updateWebhookEndpoint, { events: ['match.updated', 'match.created'], description: 'dash', enabled: true, disabledReason: null }, 'omitted arguments keep their value');
  for (const args of ['events: ["nope"]', 'events: []', 'url: "ftp://example.com/"', 'url: "http://10.0.0.1/hook"']) {
    const refused = await q(`mutation { updateWebhookEndpoint(id: "${ep.id}", ${args}) { id } }`);
    t.is(refused.json.errors?.[0]?.extensions.code, 'BAD_USER_INPUT', `${args}: ${refused.text}`);
    t.is(refused.json.data.updateWebhookEndpoint, null);
  }
  t.like((await server.call('GET', `/api/v4/account/webhooks/${ep.id}/`, { key: account.apiKey })).json, { url: r.url, events: ['match.updated', 'match.created'] }, 'a refused update changes nothing');
  const stranger = await server.createAccount('grapher-b');
  for (const id of [ep.id, 'x', '999999999']) {
    const missing = await server.call('POST', '/graphql', { key: stranger.apiKey, json: { query: `mutation { updateWebhookEndpoint(id: "${id}", description: "mine") { id } }` } });
    t.is(missing.json.errors?.[0]?.extensions.code, 'NOT_FOUND', missing.text);
  }
  t.is((await server.call('GET', `/api/v4/account/webhooks/${ep.id}/`, { key: account.apiKey })).json.description, 'dash');
  t.true((await q(`mutation { deleteWebhookEndpoint(id: "${ep.id}") }`)).json.data.deleteWebhookEndpoint);
});
