import test from 'ava';
import { ManualClock } from '@filigrane/core';
import { startTestServer, type CallResult, type TestServer } from '@filigrane/testing';

// Two API processes on one database (two apps sharing nothing but PostgreSQL), behind a proxy
// (TRUST_PROXY 1) so each request can come from its own client address.
const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
let one: TestServer;
let two: TestServer;
let key: string;

test.before(async () => {
  one = await startTestServer({ plugins: ['auth'], workers: false, clock, config: { trustProxy: 1 } });
  two = await startTestServer({ plugins: ['auth'], workers: false, clock, config: { trustProxy: 1 }, databaseUrl: one.databaseUrl, masterKey: one.masterKey });
  key = (await one.createAccount('throttled')).apiKey;
});
test.after.always(async () => {
  await two?.close();
  await one?.close();
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const token = (server: TestServer, from: string, id: string, secret: string) =>
  server.call('POST', '/o/token/', {
    body: 'grant_type=client_credentials',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(id, secret), 'x-forwarded-for': from },
  });
const newClient = async (name: string) => (await one.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name } })).json as { client_id: string; client_secret: string };
const throttled = (t: { is(a: unknown, b: unknown, m?: string): void; like(a: unknown, b: unknown): void; true(a: boolean, m?: string): void }, res: CallResult) => {
  t.is(res.status, 429, res.text);
  t.like(res.json, { status_code: 429, code: 'too_many_failed_attempts' });
  const after = Number(res.headers.get('retry-after'));
  t.true(after >= 1 && after <= 300, `Retry-After ${after}`);
  t.true(Boolean(res.headers.get('x-request-id')));
  return after;
};

test.serial('wrong client secrets are throttled per client and address across processes; the owner is not locked out', async (t) => {
  const app = await newClient('guessed');
  // Twenty wrong secrets in a burst, half on each process: five are checked, then the pair is held back.
  const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => token(i % 2 ? two : one, '203.0.113.7', app.client_id, `wrong-${i}`)));
  const statuses = burst.map((r) => r.status);
  t.true(statuses.filter((s) => s === 401).length <= 6, statuses.join(','));
  t.true(statuses.filter((s) => s === 429).length >= 14, statuses.join(','));
  throttled(t, burst.find((r) => r.status === 429)!);
  // Held back: even the right secret from that address waits (it is not checked, so nothing leaks).
  const wait = throttled(t, await token(one, '203.0.113.7', app.client_id, app.client_secret));
  // The rightful owner from another address is not concerned.
  const fresh = await token(two, '198.51.100.20', app.client_id, app.client_secret);
  t.is(fresh.status, 200, fresh.text);
  // Once the back-off is over, the right secret works from the attacker's address too.
  clock.advance(wait * 1000);
  t.is((await token(two, '203.0.113.7', app.client_id, app.client_secret)).status, 200);
  // The back-off doubles per failure but never exceeds its cap.
  let last = 0;
  for (let i = 0; i < 14; i++) {
    const res = await token(one, '203.0.113.8', app.client_id, 'wrong');
    if (res.status === 429) {
      last = Number(res.headers.get('retry-after'));
      clock.advance(last * 1000);
    }
  }
  t.true(last > 1 && last <= 300, String(last));
});

test.serial('a client attacked from many addresses holds back those that failed, not a fresh one', async (t) => {
  const app = await newClient('sprayed');
  for (let i = 1; i <= 22; i++) t.is((await token(i % 2 ? one : two, `192.0.2.${i}`, app.client_id, 'wrong')).status, 401);
  // The client is under attack: an address that already failed is held back at its second try...
  throttled(t, await token(one, '192.0.2.3', app.client_id, 'wrong-again'));
  // ...while the owner's address, which never failed, still gets its token.
  t.is((await token(two, '198.51.100.99', app.client_id, app.client_secret)).status, 200);
});

test.serial('wrong API keys and bearer tokens are counted per address: 429 with Retry-After, a right key still works', async (t) => {
  const from = { 'x-forwarded-for': '203.0.113.50' };
  const answers: number[] = [];
  for (let i = 0; i < 12; i++) {
    const server = i % 2 ? two : one;
    const res = i % 3 ? await server.call('GET', '/api/v4/account/', { key: `fk_wrong${i}`, headers: from }) : await server.call('GET', '/api/v4/account/', { bearer: `fat_wrong${i}`, headers: from });
    answers.push(res.status);
    if (res.status === 429) throttled(t, res);
  }
  t.deepEqual(answers.slice(0, 10), Array(10).fill(401));
  t.deepEqual(answers.slice(10), [429, 429]);
  // A right key is never refused: it cannot be guessed (240 bits), and the owner keeps working.
  t.is((await one.call('GET', '/api/v4/account/', { key, headers: from })).status, 200);
  // Another address is not concerned.
  t.like((await two.call('GET', '/api/v4/account/', { key: 'fk_wrong', headers: { 'x-forwarded-for': '203.0.113.51' } })).json, { status_code: 401 });
});
