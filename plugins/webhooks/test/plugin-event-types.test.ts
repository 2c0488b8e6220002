import test from 'ava';
import { accepted, contribute, definePlugin, PLUGIN_API_VERSION, TOKENS, WEBHOOK_EVENT_TYPES, type DataSource, type EventPublisher } from '@filigrane/plugin-api';
import { startTestServer } from '@filigrane/testing';
import { eventually, Receiver, verifyStandardWebhook } from './receiver.js';

// A plugin written outside the repository: only @filigrane/plugin-api. It offers its event to
// webhooks through the platform's point, whether or not the webhooks plugin is loaded.
const probe = definePlugin({
  id: 'probe-feed',
  pluginApi: `^${PLUGIN_API_VERSION}`,
  routes: [{ versions: ['v4'], method: 'POST', path: '/probe-feed/checks/', handler: async (ctx) => {
    const events = ctx.container.get<EventPublisher>(TOKENS.Events);
    await ctx.container.get<DataSource>(TOKENS.DataSource).transaction((tx) => events.enqueue({ type: 'probe-feed.checked', accountId: ctx.principal!.accountId, data: { feed_id: 7 } }, tx));
    await events.flush();
    return accepted({});
  } }],
  contributions: [contribute(WEBHOOK_EVENT_TYPES, () => ['probe-feed.checked'])],
});

test('without the webhooks plugin, a contribution of event types does not stop the boot', async (t) => {
  const server = await startTestServer({ plugins: [probe], workers: false });
  t.teardown(() => server.close());
  t.false(server.plugins.includes('webhooks'));
});

test("an outside plugin's event type is accepted by subscriptions and delivered, signed", async (t) => {
  const server = await startTestServer({ plugins: [probe, 'webhooks'] });
  const r = await new Receiver().start();
  t.teardown(async () => {
    await server.close();
    await r.close();
  });
  const alice = await server.createAccount('alice');
  const unknown = await alice.call('POST', '/api/v4/account/webhooks/', { json: { url: r.url, events: ['probe-feed.exploded'] } });
  t.is(unknown.status, 400, 'types nobody contributed are still refused');
  const ep = await alice.call('POST', '/api/v4/account/webhooks/', { json: { url: r.url, events: ['probe-feed.checked'] } });
  t.is(ep.status, 201, ep.text);
  t.is((await alice.call('POST', '/api/v4/probe-feed/checks/', { json: {} })).status, 202);
  await server.drainJobs();
  const got = await eventually(() => r.received[0], 20_000, 'the delivery');
  t.like(JSON.parse(got.body), { type: 'probe-feed.checked', data: { feed_id: 7 } });
  t.true(verifyStandardWebhook(ep.json.secret, got.headers, got.body));
});
