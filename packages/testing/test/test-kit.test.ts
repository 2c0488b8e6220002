import test from 'ava';
import { ContainerModule, definePlugin, inject, injectable, ok, accepted, TOKENS, PLUGIN_API_VERSION, type Fetcher, type JobQueue, type Clock } from '@filigrane/plugin-api';
import { eventSubscription, Field, Int, ObjectType, Resolver, Root, Subscription, type DataSource, type EventPublisher, type LiveEvent } from '@filigrane/plugin-api';
import { selectPlugins, startTestServer } from '../src/index.js';
import { testPlugins } from '../src/test-server.js';

// A probe plugin: a route queues a job (singleton key), the job fetches a loopback page.
@injectable()
class ProbeService {
  readonly seen: string[] = [];
  constructor(@inject(TOKENS.Fetcher) private readonly fetcher: Fetcher, @inject(TOKENS.JobQueue) readonly jobs: JobQueue, @inject(TOKENS.Clock) readonly clock: Clock) {}
  async visit(url: string): Promise<void> {
    this.seen.push((await this.fetcher.fetch(url)).body.toString());
  }
}

const probe = definePlugin({
  id: 'probe',
  pluginApi: `^${PLUGIN_API_VERSION}`,
  bindings: new ContainerModule(({ bind }) => void bind(ProbeService).toSelf().inSingletonScope()),
  routes: [
    { versions: ['v4'], method: 'POST', path: '/probe/', auth: 'none', handler: async (ctx) => {
      const url = String((ctx.body as { url: string }).url);
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push(await ctx.container.get(ProbeService).jobs.send('probe.visit', { url }, { singletonKey: url, startAfterSeconds: i === 0 ? 3 : 0 }));
      return accepted({ ids });
    } },
    { versions: ['v4'], method: 'GET', path: '/probe/', auth: 'none', handler: async (ctx) => ok({ seen: ctx.container.get(ProbeService).seen, now: ctx.container.get(ProbeService).clock.now().toISOString() }) },
  ],
  jobs: (container) => [{ queue: 'probe.visit', pollingIntervalSeconds: 0.5, handler: async (data: { url: string }) => container.get(ProbeService).visit(data.url) }],
});

test('only the plugins asked for (and identity) load; jobs run, singleton keys deduplicate, drainJobs waits', async (t) => {
  const server = await startTestServer({ plugins: [probe], clock: new Date('2030-01-01T00:00:00Z'), log: (l) => t.log(l) });
  t.teardown(() => server.close());
  // The server core's own (rate limits, docs, outbox...) aside, only identity and the plugin under test.
  const core = ['rate-limit', 'master-key', 'event-outbox', 'job-schedules', 'browser', 'api-docs'];
  t.deepEqual(server.plugins.filter((id) => !core.includes(id)).sort(), ['account', 'auth', 'probe']);
  const site = await server.serveSite({ '/page.html': { type: 'text/html', body: '<p>hello</p>' } });
  const queued = await server.call('POST', '/api/v4/probe/', { json: { url: site.url('/page.html') } });
  t.is(queued.status, 202, queued.text);
  t.truthy(queued.json.ids[0]);
  t.deepEqual(queued.json.ids.slice(1), [null, null], 'the same key while the first job waits is dropped');
  await server.drainJobs({ timeoutMs: 20_000 });
  const seen = await server.call('GET', '/api/v4/probe/');
  t.deepEqual(seen.json.seen, ['<p>hello</p>']);
  t.is(site.requests.length, 1);
  t.is(seen.json.now, '2030-01-01T00:00:00.000Z');
  server.clock.advance(60_000);
  t.is((await server.call('GET', '/api/v4/probe/')).json.now, '2030-01-01T00:01:00.000Z');
  const alice = await server.createAccount('alice');
  t.is((await alice.call('GET', '/api/v4/account/')).status, 200);
});

test('a requirement comes from the plugins given, else its installed package; a missing one is a clear error', async (t) => {
  const needy = definePlugin({ id: 'needy', pluginApi: `^${PLUGIN_API_VERSION}`, requires: ['crystal-ball'] });
  await t.throwsAsync(startTestServer({ plugins: [needy] }), { message: 'plugin "needy" requires plugin "crystal-ball": pass it in plugins, or install @filigrane/plugin-crystal-ball' });
  const ball = definePlugin({ id: 'crystal-ball', pluginApi: `^${PLUGIN_API_VERSION}` });
  t.deepEqual(selectPlugins([needy, ball]).map((p) => p.id), ['auth', 'account', 'needy', 'crystal-ball']);
  // A module, or its import (Backstage's `features`), counts as its plugins.
  t.deepEqual((await testPlugins([Promise.resolve({ default: ball }), { plugin: needy }])).map((p) => (typeof p === 'string' ? p : p.id)), ['crystal-ball', 'needy']);
  // An id is the installed first-party package (@filigrane/plugin-blacklist), with what it requires.
  t.deepEqual(selectPlugins(['blacklist']).map((p) => p.id).sort(), ['account', 'auth', 'blacklist']);
});

test('run-time schedules follow the test clock: runDueSchedules() sends what fell due, drainJobs() runs it', async (t) => {
  const ticks: string[] = [];
  const ticker = definePlugin({
    id: 'ticker',
    pluginApi: `^${PLUGIN_API_VERSION}`,
    jobs: (container) => [{ queue: 'ticker.tick', pollingIntervalSeconds: 0.5, handler: async () => void ticks.push(container.get<Clock>(TOKENS.Clock).now().toISOString()) }],
  });
  const server = await startTestServer({ plugins: [ticker], clock: new Date('2031-03-01T09:10:00Z') });
  t.teardown(() => server.close());
  // No `from`: the first run counts from the server's clock, not the machine's (2031, not today).
  await server.get<JobQueue>(TOKENS.JobQueue).schedule('ticker.tick', '0 * * * *', {}, { key: 'hourly' });
  t.is(await server.runDueSchedules(), 0, 'not due before 10:00 on the test clock');
  server.clock.advance(49 * 60_000);
  t.is(await server.runDueSchedules(), 0);
  server.clock.advance(60_000);
  t.is(await server.runDueSchedules(), 1, 'due at 10:00');
  t.is(await server.runDueSchedules(), 0, 'sent once');
  await server.drainJobs();
  t.deepEqual(ticks, ['2031-03-01T10:00:00.000Z']);
});

test('restart(): a new server on the same database, key and clock; schedules and accounts survive it', async (t) => {
  const ticks: string[] = [];
  const ticker = definePlugin({
    id: 'ticker',
    pluginApi: `^${PLUGIN_API_VERSION}`,
    jobs: () => [{ queue: 'ticker.tick', pollingIntervalSeconds: 0.5, handler: async (data: { by: string }) => void ticks.push(data.by) }],
  });
  const first = await startTestServer({ plugins: [ticker], clock: new Date('2031-03-01T09:10:00Z') });
  const alice = await first.createAccount('alice');
  await first.get<JobQueue>(TOKENS.JobQueue).schedule('ticker.tick', '0 * * * *', { by: 'schedule' }, { key: 'hourly' });
  const second = await first.restart();
  t.teardown(() => second.close());
  t.not(second.url, first.url);
  t.is((await first.call('GET', '/api/v4/account/', { key: alice.apiKey }).catch(() => null))?.status ?? 0, 0, 'the first server is gone');
  const account = await second.call('GET', '/api/v4/account/', { key: alice.apiKey });
  t.is(account.json.username, 'alice', 'the account and its key survived');
  t.is(second.clock, first.clock);
  second.clock.advance(50 * 60_000);
  t.is(await second.runDueSchedules(), 1, 'the schedule made before the restart');
  await second.drainJobs();
  t.deepEqual(ticks, ['schedule']);
});

@ObjectType('TickerTicked')
class TickerTicked {
  @Field(() => Int) n!: number;
}
@injectable()
@Resolver(() => TickerTicked)
class TickerResolver {
  @Subscription(() => TickerTicked, { subscribe: eventSubscription(['ticker.ticked']) })
  tickerTicked(@Root() e: LiveEvent): TickerTicked {
    return { n: Number(e.data.n) };
  }
}

test("account.subscribe(): a plugin's subscription over a real graphql-ws connection, the caller's events only", async (t) => {
  const ticker = definePlugin({
    id: 'ticker',
    pluginApi: `^${PLUGIN_API_VERSION}`,
    resolvers: [TickerResolver],
    routes: [{ versions: ['v4'], method: 'POST', path: '/ticker/', handler: async (ctx) => {
      const events = ctx.container.get<EventPublisher>(TOKENS.Events);
      await ctx.container.get<DataSource>(TOKENS.DataSource).transaction((tx) => events.enqueue({ type: 'ticker.ticked', accountId: ctx.principal!.accountId, data: { n: 7 } }, tx));
      await events.flush();
      return accepted({});
    } }],
  });
  const server = await startTestServer({ plugins: [ticker] });
  t.teardown(() => server.close());
  const alice = await server.createAccount('alice');
  const bob = await server.createAccount('bob');
  const mine = await alice.subscribe('subscription { tickerTicked { n } }');
  const theirs = await bob.subscribe('subscription { tickerTicked { n } }');
  t.is((await alice.call('POST', '/api/v4/ticker/', { json: {} })).status, 202);
  t.deepEqual((await mine.next(1)).data, { tickerTicked: { n: 7 } });
  await server.drainJobs();
  t.deepEqual(theirs.results, [], "bob gets none of alice's events");
});
