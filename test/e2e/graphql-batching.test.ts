import test from 'ava';
import sharp from 'sharp';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner.js';
import type { DataSource } from 'typeorm';
import { TOKENS } from '@filigrane/core';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';

// Every SQL statement the server runs goes through TypeORM's query runner (DataSource.query,
// repositories, query builders): counting its calls during one request counts the request's SQL.
let counting = false;
let statements = 0;
const original = PostgresQueryRunner.prototype.query;
PostgresQueryRunner.prototype.query = function (this: PostgresQueryRunner, ...args: Parameters<typeof original>) {
  if (counting) statements++;
  return original.apply(this, args);
} as typeof original;

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;

test.before(async () => {
  // No job workers: nothing but the request runs SQL while it is counted.
  server = await startTestServer({ plugins: defaultPlugins(), workers: false });
  alice = await server.createAccount('batcher');
  bob = await server.createAccount('outsider');
  const media: number[] = [];
  for (let i = 0; i < 20; i++) {
    const png = await sharp({ create: { width: 48, height: 40, channels: 3, background: { r: i * 12, g: 80, b: 200 - i * 5 } } }).png().toBuffer();
    const res = await alice.call('PUT', `/api/v4/media/batcher/m${i}.png`, { json: { url: `data:image/png;base64,${png.toString('base64')}` } });
    if (res.status !== 201) throw new Error(res.text);
    media.push(Number(new URL(res.json.thumbnail).pathname.split('/')[4]));
  }
  const recorder = server.get(MatchRecorder);
  for (let i = 0; i < 100; i++) {
    await recorder.record({
      sighting: { accountId: alice.id, source: 'test', kind: 'web', image: {}, imageUrl: `https://news${i % 7}.example.com/i${i}.jpg`, page: { url: `https://news${i % 7}.example.com/p${i}` }, seenAt: new Date(Date.UTC(2026, 10, 1, 0, i)) },
      mediaId: media[i % media.length]!,
      watermarked: i % 2 === 0,
      exclusive: null,
      query: { width: 640, height: 480, format: 'jpeg' },
    });
  }
  for (let i = 0; i < 100; i++) {
    const res = await alice.call('POST', '/api/v3/crawling/sessions/', { json: { url: `http://127.0.0.1:9/site${i}/` } });
    if (res.status !== 201) throw new Error(res.text);
  }
  // Four finished crawls per session, one a day from 1 November (no worker crawls here: the rows a
  // finished cycle leaves), so that nested batch pages have something to filter and page through.
  await server.get<DataSource>(TOKENS.DataSource).query(
    `INSERT INTO crawl_batches (session_id, account_id, crawl_cycle, ctime, images, videos, documents, pages)
     SELECT s.id, s.account_id, c, timestamptz '2026-11-01T12:00:00Z' + (c - 1) * interval '1 day', c, 0, 0, 10 * c
     FROM crawl_sessions s, generate_series(1, 4) c WHERE s.account_id = $1`,
    [alice.id],
  );
});
test.after.always(async () => server?.close());

/** A dashboard's nested query over n matches and n sessions (each with its batches and their session). */
const nested = (n: number) => `{
  matches(pageSize: ${n}) { count results { id watermarked media { id path thumbnail } site { domain } page { url } } }
  crawlSessions(first: ${n}) { nodes { id state latestBatch { id crawlCycle } batches(first: 3) { nodes { id session { id } } } } }
}`;

/**
 * SQL statements of one request, the least of `runs` runs: anything else the process does meanwhile
 * (a pool opening one more connection under load, say) can only add to a run's count.
 */
async function countStatements(account: TestAccount, query: string, runs = 3): Promise<{ statements: number; ms: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  let best: { statements: number; ms: number; json: any } | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (let i = 0; i < runs; i++) {
    statements = 0;
    counting = true;
    const started = performance.now();
    const res = await account.call('POST', '/graphql', { json: { query } });
    const ms = performance.now() - started;
    counting = false;
    if (res.status !== 200 || res.json.errors) throw new Error(res.text.slice(0, 500));
    if (!best || statements < best.statements) best = { statements, ms, json: res.json };
  }
  return best!;
}

test.serial('a nested query over 100 matches and 100 sessions runs as many SQL statements as over 10', async (t) => {
  await countStatements(alice, nested(1)); // warm caches (settings, blacklist, prepared metadata)
  const ten = await countStatements(alice, nested(10));
  const hundred = await countStatements(alice, nested(100));
  t.is(hundred.json.data.matches.results.length, 100);
  t.is(hundred.json.data.crawlSessions.nodes.length, 100);
  t.true(hundred.json.data.matches.results.every((m: { media: { path: string } | null }) => m.media?.path.startsWith('/batcher/m')), 'every match has its media');
  t.log(`SQL statements: ${ten.statements} over 10 matches + 10 sessions, ${hundred.statements} over 100 + 100 (${hundred.ms.toFixed(0)} ms)`);
  t.is(hundred.statements, ten.statements, 'the count does not grow with the number of objects');
  // Per relation one statement: matches (count + page), media, sessions, batches, batch sessions, plus the request's own (credentials, limits).
  t.true(hundred.statements <= 15, `${hundred.statements} statements`);
});

/** The same, each session's batches filtered by date and paged by cursor (one query per session before). */
const filtered = (n: number, after: string) => nested(n).replace('batches(first: 3)', `batches(first: 2, after: "${after}", filter: { ctime: { gte: "2026-11-02" } })`);

test.serial('nested batches with a filter and a cursor: read for every session at once, the right page of each', async (t) => {
  const sessionPage = await countStatements(alice, '{ crawlSessions(first: 1) { nodes { batches(first: 1) { pageInfo { endCursor } } } } }');
  const cursor: string = sessionPage.json.data.crawlSessions.nodes[0].batches.pageInfo.endCursor; // after the first (newest) one
  await countStatements(alice, filtered(1, cursor));
  const ten = await countStatements(alice, filtered(10, cursor));
  const hundred = await countStatements(alice, filtered(100, cursor));
  t.log(`SQL statements with filter + after: ${ten.statements} over 10 sessions, ${hundred.statements} over 100 (${hundred.ms.toFixed(0)} ms)`);
  t.is(hundred.statements, ten.statements, 'the count does not grow with the number of sessions');
  t.true(hundred.statements <= 15, `${hundred.statements} statements`);
  // Each session: its cycles from 2 November (2, 3, 4), newest first, after the first: cycles 3 and 2, and no more.
  const sessions = hundred.json.data.crawlSessions.nodes as { id: number; latestBatch: { crawlCycle: number }; batches: { nodes: { id: number; session: { id: number } }[] } }[];
  t.is(sessions.length, 100);
  const cycles = await server.get<DataSource>(TOKENS.DataSource).query('SELECT id, session_id, crawl_cycle FROM crawl_batches WHERE account_id = $1', [alice.id]);
  const byId = new Map<number, { session_id: number; crawl_cycle: number }>(cycles.map((r: { id: number; session_id: number; crawl_cycle: number }) => [r.id, r]));
  for (const s of sessions) {
    t.deepEqual(s.batches.nodes.map((b) => [byId.get(b.id)?.session_id, byId.get(b.id)?.crawl_cycle, b.session.id]), [[s.id, 3, s.id], [s.id, 2, s.id]]);
    t.is(s.latestBatch.crawlCycle, 4);
  }
  // The same page as the REST list of one session's batches (page 1 of 2 per page is cycles 4, 3; page 2 is 2, 1).
  const [one] = sessions;
  const rest = await alice.call('GET', `/api/v3/crawling/sessions/${one!.id}/batches/?ctime_gte=2026-11-02&page_size=1&page=2`);
  t.is(rest.status, 200, rest.text);
  t.is(rest.json.results[0].id, one!.batches.nodes[0]!.id);
  const last = await countStatements(alice, `{ crawlSession(id: ${one!.id}) { batches(first: 2, after: "${cursor}", filter: { ctime: { gte: "2026-11-02" } }) { pageInfo { hasNextPage } } } }`);
  t.false(last.json.data.crawlSession.batches.pageInfo.hasNextPage);
  const forged = await alice.call('POST', '/graphql', { json: { query: '{ crawlSessions(first: 1) { nodes { batches(after: "forged") { nodes { id } } } } }' } });
  t.is(forged.json.errors[0].extensions.code, 'BAD_USER_INPUT');
});

test.serial('the batched relations keep accounts apart: another account gets none of them', async (t) => {
  const other = await countStatements(bob, nested(100));
  t.is(other.json.data.matches.count, 0);
  t.deepEqual(other.json.data.crawlSessions.nodes, []);
});
