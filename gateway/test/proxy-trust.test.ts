import test from 'ava';
import { parseTrustProxy } from '@filigrane/server';
import { startTestServer, type TestServer } from './support/test-server.js';

const servers: TestServer[] = [];
test.after.always(async () => Promise.all(servers.map((s) => s.close())));

async function start(trustProxy: number | string[] | false): Promise<TestServer> {
  const s = await startTestServer({ config: { trustProxy, rateLimit: { perSecond: 1000, perDay: 1_000_000 } } });
  servers.push(s);
  return s;
}

/** The client address each request was counted under (unauthenticated requests are limited per address). */
async function countedAs(server: TestServer, forwardedFor: string): Promise<string[]> {
  await server.app.dataSource.query('DELETE FROM rate_limit_counters');
  await server.call('GET', '/api/v4/account/', { headers: { 'x-forwarded-for': forwardedFor } });
  const rows: { subject: string }[] = await server.app.dataSource.query(`SELECT DISTINCT subject FROM rate_limit_counters`);
  return rows.map((r) => r.subject);
}

test('one trusted hop: the address the proxy saw (rightmost entry), never the forged leftmost one', async (t) => {
  const server = await start(1);
  t.deepEqual(await countedAs(server, '6.6.6.6, 203.0.113.9'), ['ip:203.0.113.9']);
  t.deepEqual(await countedAs(server, '7.7.7.7, 203.0.113.9'), ['ip:203.0.113.9'], 'changing the forged part changes nothing');
});

test('a list of proxy addresses: the first entry from the right that is not a proxy', async (t) => {
  const server = await start(['127.0.0.1', '10.0.0.0/8']);
  t.deepEqual(await countedAs(server, '6.6.6.6, 198.51.100.7, 10.1.2.3'), ['ip:198.51.100.7']);
});

test('no proxy configured: X-Forwarded-For is ignored', async (t) => {
  const server = await start(false);
  t.deepEqual(await countedAs(server, '6.6.6.6'), ['ip:127.0.0.1']);
});

test('TRUST_PROXY parsing: hops, addresses, and no "trust everything"', (t) => {
  t.is(parseTrustProxy(undefined), false);
  t.is(parseTrustProxy('0'), false);
  t.is(parseTrustProxy('2'), 2);
  t.deepEqual(parseTrustProxy('10.0.0.0/8, ::1'), ['10.0.0.0/8', '::1']);
  t.throws(() => parseTrustProxy('true'));
  t.throws(() => parseTrustProxy('10.0.0.0/33'));
});
