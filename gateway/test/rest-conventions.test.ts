import test from 'ava';
import sharp from 'sharp';
import { ManualClock } from '@filigrane/core';
import { defaultPlugins } from '../src/index.js';
import { createApp, call } from '@filigrane/server';
import { startTestServer, type TestServer } from './support/test-server.js';

// Time stands still, so every request of a test falls in the same one-second window.
const clock = new ManualClock(new Date('2026-06-01T12:00:00.100Z'));
let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer({ clock, config: { bodyLimitBytes: 1024, rateLimit: { perSecond: 1000, perDay: 100_000 } } });
  key = (await server.createAccount('conv')).apiKey;
});
test.after.always(async () => server?.close());

test('X-Request-Id: generated, echoed when well-formed, replaced when not', async (t) => {
  const a = await server.call('GET', '/api/v4/account/', { key });
  t.regex(a.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const b = await server.call('GET', '/api/v4/account/', { key, headers: { 'x-request-id': 'client-req-000123' } });
  t.is(b.headers.get('x-request-id'), 'client-req-000123');
  const c = await server.call('GET', '/api/v4/account/', { key, headers: { 'x-request-id': 'bad id\twith spaces' } });
  t.not(c.headers.get('x-request-id'), 'bad id\twith spaces');
  const nf = await server.call('GET', '/nope');
  t.truthy(nf.headers.get('x-request-id'), 'even on a 404');
});

test('framework errors use the error body: 404, 405 with Allow, 415, 411, 413, 400, 406', async (t) => {
  const nf = await server.call('GET', '/api/v4/nothing-here/', { key });
  t.deepEqual(Object.keys(nf.json).sort(), ['code', 'details', 'status_code']);
  t.like(nf.json, { status_code: 404, code: 'not_found' });

  const m = await server.call('DELETE', '/api/v3/account/', { key });
  t.like(m.json, { status_code: 405, code: 'method_not_allowed' });
  t.is(m.headers.get('allow'), 'GET, HEAD, OPTIONS');

  const ct = await server.call('POST', '/api/v4/domains/blacklist/', { key, body: 'url=a.com', headers: { 'content-type': 'text/plain' } });
  t.like(ct.json, { status_code: 415, code: 'unsupported_media_type' });

  const empty = await server.call('POST', '/api/v4/domains/blacklist/', { key, headers: { 'content-type': 'application/json' } });
  t.like(empty.json, { status_code: 411, code: 'length_required' });

  const big = await server.call('POST', '/api/v4/domains/blacklist/', { key, json: { url: 'x'.repeat(5000) } });
  t.like(big.json, { status_code: 413, code: 'request_too_large' });

  const bad = await server.call('POST', '/api/v4/domains/blacklist/', { key, body: '{"url":', headers: { 'content-type': 'application/json' } });
  t.like(bad.json, { status_code: 400, code: 'parse_error' });

  const fmt = await server.call('GET', '/api/v4/account/?format=xml', { key });
  t.like(fmt.json, { status_code: 406, code: 'not_acceptable' });
  t.is((await server.call('GET', '/api/v4/account/?format=json', { key })).status, 200);
  t.is((await server.call('GET', '/api/v4/account/?format=csv', { key })).status, 406, 'csv only where a route offers it');
});

test('versions: v3 and v4 serve, v1 is gone (410), v2 is not implemented here (501)', async (t) => {
  t.is((await server.call('GET', '/api/v3/account/', { key })).status, 200);
  t.like((await server.call('GET', '/api/v1/account/', { key })).json, { status_code: 410, code: 'version_removed' });
  t.like((await server.call('GET', '/api/v2/account/', { key })).json, { status_code: 501, code: 'version_not_implemented' });
  t.is((await server.call('GET', '/api/v9/account/', { key })).status, 404);
  t.is((await server.call('GET', '/api/v4/account', { key })).status, 200, 'trailing slash optional');
});

test('every response carries the rate-limit headers', async (t) => {
  for (const res of [await server.call('GET', '/api/v4/account/', { key }), await server.call('GET', '/missing'), await server.call('GET', '/api/v4/account/')]) {
    for (const h of ['x-ratelimit-secondly', 'x-ratelimit-secondly-remaining', 'x-ratelimit-daily', 'x-ratelimit-daily-remaining']) {
      t.truthy(res.headers.get(h), `${h} on ${res.status}`);
    }
  }
});

test('GraphQL: explorer page served offline, same credentials and error codes as REST', async (t) => {
  const page = await server.call('GET', '/graphql', { headers: { accept: 'text/html' } });
  t.is(page.status, 200);
  t.true(page.text.includes('<title>Filigrane GraphQL</title>'));
  t.false(/https?:\/\//.test(page.text.replace(/<[^>]*>/g, '')), 'no external resources');
  const unauth = await server.call('POST', '/graphql', { json: { query: '{ account { username } }' } });
  t.is(unauth.json.errors[0].extensions.apiCode, 'not_authenticated');
  t.is(unauth.json.errors[0].extensions.status_code, 401);
  const wrong = await server.call('POST', '/graphql', { key: 'fk_wrong', json: { query: '{ account { username } }' } });
  t.is(wrong.status, 401);
  t.like(wrong.json.errors[0].extensions, { code: 'UNAUTHENTICATED', apiCode: 'authentication_failed' });
  const ok = await server.call('POST', '/graphql', { key, json: { query: '{ account { username } }' } });
  t.is(ok.json.data.account.username, 'conv');
});

test.serial('rate limits: 429 with Retry-After, and counters shared by two API processes on one database', async (t) => {
  const frozen = new ManualClock(new Date('2026-06-02T13:00:00.500Z'));
  const config = { ...server.app.container.get<Record<string, unknown>>(Symbol.for('filigrane.Config')), rateLimit: { perSecond: 4, perDay: 6 } };
  const apps = await Promise.all(
    [0, 1].map(() => createApp({ config: config as never, plugins: defaultPlugins(), databaseUrl: server.databaseUrl, masterKey: server.masterKey, clock: frozen, log: () => undefined })),
  );
  try {
    const urls = await Promise.all(apps.map((a) => a.listen(0, '127.0.0.1')));
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(urls[i % 2]!, 'GET', '/api/v4/account/', { key });
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-secondly-remaining') ?? '');
      if (res.status === 429) {
        t.is(res.headers.get('retry-after'), '1');
        t.like(res.json, { status_code: 429, code: 'throttled' });
      }
    }
    t.deepEqual(statuses, [200, 200, 200, 200, 429], 'the fifth request in one second is refused, whichever process serves it');
    t.deepEqual(remaining, ['3', '2', '1', '0', '0']);
    frozen.advance(1000);
    const sixth = await call(urls[0]!, 'GET', '/api/v4/account/', { key });
    t.is(sixth.status, 200, 'a new second opens the window');
    t.is(sixth.headers.get('x-ratelimit-daily-remaining'), '1', 'the request refused by the second window cost no daily quota');
    t.is((await call(urls[1]!, 'GET', '/api/v4/account/', { key })).status, 200, 'the sixth counted request of the day still passes');
    for (let i = 0; i < 3; i++) {
      frozen.advance(1000);
      const daily = await call(urls[i % 2]!, 'GET', '/api/v4/account/', { key });
      t.is(daily.status, 429, 'beyond six counted requests the daily limit refuses');
      t.is(daily.headers.get('x-ratelimit-daily-remaining'), '0');
      t.is(Number(daily.headers.get('retry-after')), 11 * 3600 - 1 - (i + 1), 'seconds until the daily window resets');
    }
    await new Promise((r) => setTimeout(r, 200)); // the refund of the refused requests is written after the answer
    const [row] = await apps[0]!.dataSource.query(`SELECT hits FROM rate_limit_counters WHERE window_kind = 'd' AND subject LIKE 'account:%' AND window_start = '2026-06-02T00:00:00Z'`);
    t.is(row.hits, 6, 'refused requests do not consume the daily quota');
  } finally {
    await Promise.all(apps.map((a) => a.close()));
  }
});

test.serial('concurrent requests are counted exactly: no more than the limit pass in one window', async (t) => {
  const frozen = new ManualClock(new Date('2026-06-03T09:00:00.200Z'));
  const config = { ...server.app.container.get<Record<string, unknown>>(Symbol.for('filigrane.Config')), rateLimit: { perSecond: 5, perDay: 1000 } };
  const apps = await Promise.all(
    [0, 1].map(() => createApp({ config: config as never, plugins: defaultPlugins(), databaseUrl: server.databaseUrl, masterKey: server.masterKey, clock: frozen, log: () => undefined })),
  );
  try {
    const urls = await Promise.all(apps.map((a) => a.listen(0, '127.0.0.1')));
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => call(urls[i % 2]!, 'GET', '/api/v4/account/', { key })));
    const statuses = results.map((r) => r.status);
    t.is(statuses.filter((s) => s === 200).length, 5);
    t.is(statuses.filter((s) => s === 429).length, 11);
    const remaining = results.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-secondly-remaining'))).sort();
    t.deepEqual(remaining, [0, 1, 2, 3, 4], 'each request gets its own place in the window');
  } finally {
    await Promise.all(apps.map((a) => a.close()));
  }
});

test('every collection answers the page envelope: next and previous (absolute URLs or null) beside its results', async (t) => {
  // Structural: any GET whose documented 200 carries a `results` list must document the envelope.
  const doc = (await server.call('GET', '/api/schema/', { key })).json;
  const resolve = (s: any): any => (s?.$ref ? s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc) : s); // eslint-disable-line @typescript-eslint/no-explicit-any
  const lacking: string[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths)) { // eslint-disable-line @typescript-eslint/no-explicit-any
    const schema = resolve(resolve(ops.get?.responses?.['200'])?.content?.['application/json']?.schema);
    if (resolve(schema?.properties?.results)?.type !== 'array') continue;
    if (!['next', 'previous', 'results'].every((f) => schema.required?.includes(f))) lacking.push(path);
  }
  t.deepEqual(lacking, []);
  // And really: the lists that had only `results` (browser sessions, evidence keys) page like the others.
  for (const path of ['/api/v4/sessions/', '/api/v4/evidence/keys/']) {
    const first = await server.call('GET', `${path}?page_size=1`, { key });
    t.is(first.status, 200, path);
    t.true('next' in first.json && 'previous' in first.json, `${path}: ${first.text.slice(0, 120)}`);
    t.is(first.json.previous, null);
    t.is((await server.call('GET', `${path}?page_size=0`, { key })).json.code, 'invalid_page_size', `${path} reads page_size`);
  }
  const second = await server.call('GET', '/api/v4/evidence/keys/?page=2', { key });
  t.deepEqual(second.json.results, [], 'past the end: an empty page');
  t.regex(second.json.previous, /^http:\/\/127\.0\.0\.1:\d+\/api\/v4\/evidence\/keys\/$/, 'previous is an absolute URL to follow');
});

test('201 Created names the new resource in Location (its url, or its detail route), which answers 200', async (t) => {
  const { apiKey } = await server.createAccount('locations');
  const json = (body: unknown) => ({ key: apiKey, json: body });
  const creations: [string, Parameters<TestServer['call']>[2]][] = [
    ['/api/v3/crawling/sessions/', json({ url: 'https://example.com/', search: false })],
    ['/api/v4/searches/', json({ filename: 'nothing.jpg', sync: false })],
    ['/api/v3/account/oauth/applications/', json({ name: 'located' })],
    ['/api/v4/account/webhooks/', json({ url: 'https://hooks.example.com/in', events: ['match.created'] })],
    ['/api/v4/licensees/', json({ name: 'Agency', domain: 'agency.example' })],
  ];
  for (const [path, options] of creations) {
    const res = await server.call('POST', path, options);
    t.is(res.status, 201, `${path}: ${res.text.slice(0, 200)}`);
    const location = res.headers.get('location') ?? '';
    t.true(location.startsWith(server.url + '/api/'), `${path}: Location ${location}`);
    if (typeof res.json.url === 'string' && res.json.url.startsWith(server.url)) t.is(location, res.json.url);
    const read = await server.call('GET', location.slice(server.url.length), { key: apiKey });
    t.is(read.status, 200, `GET ${location}`);
    t.is(read.json.id, res.json.id);
  }
  // Under this server's 1 KiB body limit.
  const shapes = Buffer.from('<svg width="64" height="48"><circle cx="20" cy="20" r="12" fill="#fff"/><rect x="36" y="18" width="20" height="22" fill="#123"/></svg>');
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } }).composite([{ input: shapes }]).jpeg({ quality: 60 }).toBuffer();
  const photo = await server.call('PUT', '/api/v4/media/locations/a/b.jpg', { key: apiKey, body: jpeg, headers: { 'content-type': 'image/jpeg' } });
  t.is(photo.status, 201, photo.text.slice(0, 200));
  t.is(photo.headers.get('location'), photo.json.url);
  const listed = await server.call('POST', '/api/v4/domains/blacklist/', { key: apiKey, json: { url: 'copies.example' } });
  t.is(listed.status, 201);
  t.is(listed.headers.get('location'), null, 'a blacklisted domain has no resource of its own (its url is the domain)');
});

test('per-field details always come with the errors list, whichever route raised them', async (t) => {
  for (const path of ['/api/v3/crawling/sessions/?ctime=2026-01-01&ctime_lte=2026-01-02', '/api/v3/matches/credit/?blacklist=maybe', '/api/v4/media/?hidden=2']) {
    const res = await server.call('GET', path, { key });
    t.is(res.status, 400, path);
    const fields = Object.keys(res.json.details);
    t.true(fields.length > 0, res.text);
    t.deepEqual(res.json.errors?.map((e: { field: string }) => e.field), fields, `${path}: ${res.text}`);
    for (const e of res.json.errors) t.like(e, { code: res.json.code, details: res.json.details[e.field][0] });
  }
  const plain = await server.call('GET', '/api/v4/matches/?page=0', { key });
  t.false('errors' in plain.json, 'a message without fields has no list');
});
