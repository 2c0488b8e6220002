import test from 'ava';
import pg from 'pg';
import type { Sighting } from '@filigrane/core';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { connect as connectTo, disposeClients, settle, subscribe } from '../support/graphql-ws-client.js';

// Issue 23 item 6: GraphQL subscriptions with a real graphql-ws client over loopback, fed by the
// event outbox after commit, whoever wrote the event (this process, or another connection as a
// worker process would), one account's events only.

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;

test.before(async () => {
  server = await startTestServer({ plugins: ['matches'] });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
});
test.after.always(async () => {
  await disposeClients();
  await server?.close();
});

const gql = (query: string) => alice.call('POST', '/graphql', { json: { query } });
const connect = (params: Record<string, unknown> | undefined, headers: Record<string, string> = {}) => connectTo(server.url, params, headers);

const sighting = (accountId: number, page: string): Sighting => ({ accountId, source: 'test', kind: 'web', image: {}, imageUrl: 'https://img.example.com/a.jpg', page: { url: page }, credit: 'Studio' });
const record = (s: Sighting) =>
  server.get(MatchRecorder).record({ sighting: s, mediaId: null, kind: 'credit', watermarked: false, exclusive: null, query: { width: 10, height: 10, format: 'jpeg' } });

test.serial('new and updated matches reach their account only, after commit, with the same credentials as HTTP', async (t) => {
  const a = subscribe(connect({ authorization: `Token ${alice.apiKey}` }).client, 'subscription { matchEvents { kind matchId matchKind source pageUrl credit occurredAt } }');
  const onlyNew = subscribe(connect(undefined, { authorization: `Token ${alice.apiKey}` }).client, 'subscription { matchEvents(kinds: [CREATED]) { kind matchId } }');
  const b = subscribe(connect({ authorization: `Token ${bob.apiKey}` }).client, 'subscription { matchEvents { matchId } }');
  await settle();

  const t0 = Date.now();
  const first = await record(sighting(alice.id, 'https://news.example.com/1'));
  await record(sighting(alice.id, 'https://news.example.com/1')); // seen again: updated
  const created = await a.next(1);
  t.log(`match.created reached the subscriber ${Date.now() - t0} ms after the commit`);
  t.like(created.data!.matchEvents, { kind: 'CREATED', matchId: String(first.id), matchKind: 'credit', source: 'test', pageUrl: 'https://news.example.com/1', credit: 'Studio' });
  t.is((await a.next(2)).data!.matchEvents.kind, 'UPDATED');
  t.is((await onlyNew.next(1)).data!.matchEvents.matchId, String(first.id));

  await record(sighting(bob.id, 'https://bob.example.com/1'));
  t.truthy((await b.next(1)).data!.matchEvents.matchId);
  await settle();
  t.is(a.results.length, 2, 'alice never sees bob\'s match');
  t.is(onlyNew.results.length, 1, 'the updated event was filtered out');
  t.is(b.results.length, 1, 'bob saw only his own');
});

test.serial('events written by another connection (a worker process) arrive; rolled-back ones never do', async (t) => {
  const progress = subscribe(connect({ authorization: `Token ${alice.apiKey}` }).client, 'subscription P($s: Int) { crawlProgress(sessionId: $s) { sessionId batchId state url images } }', { s: 7 });
  const jobs = subscribe(connect({ authorization: `Token ${alice.apiKey}` }).client, 'subscription { jobFinished { kind id status matchCount error } }');
  await settle();
  const other = new pg.Client({ connectionString: server.databaseUrl });
  await other.connect();
  t.teardown(() => other.end());
  const insert = (type: string, data: unknown) =>
    other.query('INSERT INTO event_outbox (account_id, type, data, occurred_at) VALUES ($1, $2, $3, now())', [alice.id, type, JSON.stringify(data)]);
  await other.query('BEGIN');
  await insert('crawl.batch.created', { session_id: 7, batch_id: 99, crawl_cycle: 1, state: 'done', url: 'https://site.example/', images: 12 });
  await other.query('ROLLBACK');
  await insert('crawl.batch.created', { session_id: 8, batch_id: 100, crawl_cycle: 1, state: 'done', url: 'https://other.example/' });
  await insert('crawl.batch.created', { session_id: 7, batch_id: 101, crawl_cycle: 1, state: 'done', url: 'https://site.example/', images: 3 });
  await insert('search.completed', { id: 'abc', status: 'complete', type: 'image', match_count: 4 });
  await insert('watermarking.completed', { id: 'w1', status: 'failed', error: { code: 'bad_image', details: 'Not an image.' } });

  t.deepEqual((await progress.next(1)).data!.crawlProgress, { sessionId: 7, batchId: 101, state: 'done', url: 'https://site.example/', images: 3 });
  t.deepEqual((await jobs.next(1)).data!.jobFinished, { kind: 'SEARCH', id: 'abc', status: 'complete', matchCount: 4, error: null });
  t.deepEqual((await jobs.next(2)).data!.jobFinished, { kind: 'WATERMARKING', id: 'w1', status: 'failed', matchCount: null, error: 'Not an image.' });
  await settle();
  t.is(progress.results.length, 1, 'the rolled-back batch and session 8 were not delivered');
});

test.serial('a transaction that commits after a later one still reaches subscribers (real PostgreSQL only)', async (t) => {
  // The embedded database runs one transaction at a time, so only a real server can interleave them.
  if (!process.env.DATABASE_URL) return t.pass('needs DATABASE_URL');
  const progress = subscribe(connect({ authorization: `Token ${alice.apiKey}` }).client, 'subscription { crawlProgress(sessionId: 9) { batchId } }');
  await settle();
  const slow = new pg.Client({ connectionString: server.databaseUrl });
  const fast = new pg.Client({ connectionString: server.databaseUrl });
  await Promise.all([slow.connect(), fast.connect()]);
  t.teardown(() => Promise.all([slow.end(), fast.end()]));
  const insert = (c: pg.Client, batch: number) =>
    c.query('INSERT INTO event_outbox (account_id, type, data, occurred_at) VALUES ($1, $2, $3, now())', [alice.id, 'crawl.batch.created', JSON.stringify({ session_id: 9, batch_id: batch, crawl_cycle: 1, state: 'done', url: 'https://s.example/' })]);
  await slow.query('BEGIN');
  await insert(slow, 1); // takes the lower id
  await insert(fast, 2); // commits first
  await progress.next(1);
  await slow.query('COMMIT');
  await progress.next(2);
  t.deepEqual(progress.results.map((r) => r.data!.crawlProgress.batchId).sort(), [1, 2]);
});

test.serial('no or wrong credentials close the socket; queries and mutations stay on HTTP; limits apply', async (t) => {
  const none = connect(undefined);
  t.is((await none.closed).code, 4401);
  const wrong = connect({ authorization: 'Token not-a-key' });
  t.is((await wrong.closed).code, 4401);

  const client = connect({ authorization: `Token ${alice.apiKey}` }).client;
  const query = subscribe(client, '{ account { username } }');
  await t.throwsAsync(() => query.next(1), { message: /Only subscriptions run over WebSocket/ });
  const deep = subscribe(client, `subscription { matchEvents { ${'site { '.repeat(12)} domain ${'} '.repeat(12)} } }`);
  await t.throwsAsync(() => deep.next(1), { message: /too complex|depth/ });
  const unknown = subscribe(client, 'subscription { matchEvents { nope } }');
  await t.throwsAsync(() => unknown.next(1), { message: /Cannot query field/ });
});

test.serial('a connection holds 20 subscriptions, the 21st is refused; a fragment bomb is refused at once', async (t) => {
  const client = connect({ authorization: `Token ${alice.apiKey}` }).client;
  const subs = Array.from({ length: 21 }, () => subscribe(client, 'subscription { matchEvents { matchId } }'));
  await settle();
  // The 20th was refused too (graphql-ws reserves a subscription's id before the hook counts them).
  t.deepEqual(subs.slice(0, 20).map((s) => s.error), Array(20).fill(null), 'twenty subscriptions run');
  await t.throwsAsync(() => subs[20]!.next(1), { message: /At most 20 subscriptions per connection/ });
  const m = await record(sighting(alice.id, 'https://news.example.com/twenty'));
  t.is((await subs[19]!.next(1)).data!.matchEvents.matchId, String(m.id));

  // Expanded spread by spread, this measure took minutes (2^40 spreads) and blocked every other request.
  const bomb = `subscription { ...F0 } ${Array.from({ length: 40 }, (_, i) => `fragment F${i} on Subscription { ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F40 on Subscription { ...F0 }`;
  const started = Date.now();
  const refused = subscribe(connect({ authorization: `Token ${alice.apiKey}` }).client, bomb);
  await t.throwsAsync(() => refused.next(1), { message: /Cannot spread fragment/ });
  t.true(Date.now() - started < 5_000, `refused in ${Date.now() - started} ms`);

  // Syntax and validation errors have the codes they have over HTTP.
  const fresh = connect({ authorization: `Token ${alice.apiKey}` }).client;
  for (const [http, query, code] of [['{{{', 'subscription {{{', 'GRAPHQL_PARSE_FAILED'], ['{ account { nope } }', 'subscription { matchEvents { nope } }', 'GRAPHQL_VALIDATION_FAILED']] as const) {
    const over = (await gql(http)).json.errors[0].extensions;
    t.like(over, { code, status_code: 400, apiCode: code.toLowerCase() }, http);
    const sub = subscribe(fresh, query);
    await t.throwsAsync(() => sub.next(1));
    t.like((sub.error as { extensions: unknown }[])[0]!.extensions, { code, status_code: 400, apiCode: code.toLowerCase() }, `${query} over WebSocket`);
  }
});

test.serial('the console\'s session cookie opens a subscription from its own origin, never from another', async (t) => {
  const set = await alice.call('POST', '/graphql', { json: { query: 'mutation { changePassword(newPassword: "correct horse battery") }' } });
  t.falsy(set.json.errors, set.text);
  const signIn = await server.call('POST', '/api/v4/session/', { json: { username: 'alice', password: 'correct horse battery' } });
  t.is(signIn.status, 201, signIn.text);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const own = connect(undefined, { cookie, origin: server.url });
  const sub = subscribe(own.client, 'subscription { matchEvents { matchId } }');
  await settle();
  const m = await record(sighting(alice.id, 'https://news.example.com/cookie'));
  t.is((await sub.next(1)).data!.matchEvents.matchId, String(m.id));

  const hijack = connect(undefined, { cookie, origin: 'https://evil.example' });
  t.is((await hijack.closed).code, 4401, 'a cross-site page cannot ride on the cookie');
  // A page anywhere may still use its own key: the key is its credential, not the browser's.
  const keyed = subscribe(connect({ authorization: `Token ${alice.apiKey}` }, { origin: 'https://evil.example' }).client, 'subscription { matchEvents { matchId } }');
  await settle();
  const again = await record(sighting(alice.id, 'https://news.example.com/cookie2'));
  t.is((await keyed.next(1)).data!.matchEvents.matchId, String(again.id));
});
