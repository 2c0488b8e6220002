import test from 'ava';
import { connect } from 'node:net';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { encodeLmk, generateKey, type Registration } from '@filigrane/watermark';

// Issue 19: hostile input at the boundaries answers a 4xx in the spec's error body, never a 5xx.
let server: TestServer;
let key: string;
let accountId: number;
let mediaId: number;

const png = (colour: string) => sharp({ create: { width: 64, height: 48, channels: 3, background: colour } }).png().toBuffer();
const dataUri = async (colour: string) => `data:image/png;base64,${(await png(colour)).toString('base64')}`;

test.before(async () => {
  // A short REQUEST_TIMEOUT_SECONDS, so that a stalled request is seen ending within the test.
  server = await startTestServer({ plugins: defaultPlugins(), workers: false, env: { FETCH_ALLOW_HOSTS: '', REQUEST_TIMEOUT_SECONDS: '5' } });
  const account = await server.createAccount('edge');
  key = account.apiKey;
  accountId = account.id;
  const reg = await server.call('PUT', '/api/v4/media/edge/seen.png', { key, json: { url: await dataUri('#336699') } });
  if (reg.status !== 201) throw new Error(reg.text);
  mediaId = Number(new URL(reg.json.thumbnail).pathname.split('/')[4]);
  // One match, so that every aggregation holds exactly one object.
  await server.app.container.get(MatchRecorder).record({
    sighting: { accountId, source: 'test', kind: 'web', image: {}, imageUrl: 'https://news.example.org/a.jpg', page: { url: 'https://news.example.org/a' }, seenAt: new Date(Date.UTC(2026, 2, 2)) },
    mediaId,
    watermarked: false,
    exclusive: null,
    query: { width: 640, height: 480, format: 'jpeg' },
  });
});
test.after.always(async () => server?.close());

const get = (path: string) => server.call('GET', path, { key });
const errorBody = (t: import('ava').ExecutionContext, res: { status: number; json: any; headers: Headers; text: string }, status: number, code?: string) => {
  t.is(res.status, status, res.text);
  t.is(res.json?.status_code, status, res.text);
  if (code) t.is(res.json?.code, code, res.text);
  t.truthy(res.json?.details, res.text);
  t.truthy(res.headers.get('x-request-id'));
};

// ---- 1. crafted registration files and integer columns ----

async function sealed(change: (r: Registration) => void): Promise<Buffer> {
  const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${key}` } })).arrayBuffer());
  const registration: Registration = {
    mode: 'normal',
    key: generateKey(),
    pixelHash: Buffer.alloc(32, 7),
    params: { algorithm: 1, canonicalSize: 512, gridWidth: 16, gridHeight: 12, bandLow: 0.02, bandHigh: 0.12, laCap: 5, targetPsnr: 44, psnr: 44.2 },
    original: { width: 64, height: 48, format: 'png' },
    reduced: { width: 16, height: 12, luma: new Uint16Array(16 * 12).fill(128 * 256) },
  };
  change(registration);
  return encodeLmk(registration, der);
}

test('crafted .lmk: fields beyond what the service supports are 400 lmk_invalid, a sane one registers', async (t) => {
  const put = async (name: string, file: Buffer) => server.call('PUT', `/api/v4/media/edge/${name}`, { key, body: file, headers: { 'content-type': 'application/lmk' } });
  const wide = await put('wide.png', await sealed((r) => (r.original.width = 2 ** 32 - 1)));
  errorBody(t, wide, 400, 'lmk_invalid');
  const tall = await put('tall.png', await sealed((r) => (r.original.height = 2 ** 31)));
  errorBody(t, tall, 400, 'lmk_invalid');
  const nan = await put('nan.png', await sealed((r) => (r.params.targetPsnr = Number.NaN)));
  errorBody(t, nan, 400, 'lmk_invalid');
  const ok = await put('fine.png', await sealed(() => undefined));
  t.is(ok.status, 201, ok.text);
  t.like(ok.json.image, { width: 64, height: 48 });
});

test('integer filters beyond the column type find nothing or answer 400, never 500', async (t) => {
  for (const v of ['2147483648', '-2147483649', '999999999999999']) {
    for (const q of [`site.id=${v}`, `site.id__gte=${v}`, `media.id=${v}`, `id=${v}`]) {
      const res = await get(`/api/v4/matches/?${q}`);
      t.is(res.status, 200, `${q}: ${res.text}`);
      t.is(res.json.count, q.startsWith('site.id__gte') && v.startsWith('-') ? 1 : 0, q);
    }
    for (const q of [`match_count=${v}`, `site.id__lte=${v}`]) {
      const res = await get(`/api/v3/aggregations/group-site-path/?${q}`);
      t.is(res.status, 200, `${q}: ${res.text}`);
    }
    for (const path of [`/api/v4/matches/?sessions=${v}`, `/api/v3/matches/web/?session_id=${v}`, `/api/v3/aggregations/group-path/?sessions__in=${v}`]) {
      errorBody(t, await get(path), 400, 'invalid_filter');
    }
  }
});

// ---- 2. NUL characters ----

test('NUL in a JSON string, a JSON key or a query-string value: 400 naming the field (REST)', async (t) => {
  const app = await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: 'evil\u0000app' } });
  errorBody(t, app, 400, 'invalid_character');
  t.deepEqual(app.json.errors?.map((e: { field: string }) => e.field), ['name']);
  const meta = await server.call('PATCH', '/api/v4/media/edge/seen.png', { key, json: { metadata: { 'user.note': 'a\u0000b' } } });
  errorBody(t, meta, 400, 'invalid_character');
  t.is(meta.json.errors[0].field, 'metadata.user.note');
  const nested = await server.call('PATCH', '/api/v4/media/edge/seen.png', { key, json: { metadata: { 'user.\u0000': 'x' } } });
  errorBody(t, nested, 400, 'invalid_character');
  const tags = await server.call('PATCH', '/api/v3/aggregations/group-path/1/', { key, json: { tags: ['ok', 'b\u0000d'] } });
  errorBody(t, tags, 400, 'invalid_character');
  t.is(tags.json.errors[0].field, 'tags.1');
  const form = await server.call('POST', '/o/token/', { body: 'grant_type=client_credentials%00', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
  errorBody(t, form, 400, 'invalid_character');
  const boundary = 'nulboundary';
  const multipart = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nmy search\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a\u0000.png"\r\nContent-Type: image/png\r\n\r\n`),
    await png('#112233'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const upload = await server.call('POST', '/api/v4/searches/', { key, body: multipart, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  errorBody(t, upload, 400, 'invalid_character');
  t.is(upload.json.errors[0].field, 'file.filename');
  // Client credentials are strings from the client too (base64, then percent-decoded).
  for (const cred of ['a\u0000b:secret', '\u0000:\u0000', 'a%00b:secret']) {
    const token = await server.call('POST', '/o/token/', { body: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(cred).toString('base64')}` } });
    errorBody(t, token, 401, 'invalid_client');
  }
  for (const q of ['site.domain=a%00b', 'page.url__startswith=%00%00%00', 'tags=x%00']) {
    const res = await get(`/api/v4/matches/?${q}`);
    errorBody(t, res, 400, 'invalid_character');
    t.is(res.json.errors[0].field, q.split('=')[0]);
  }
  errorBody(t, await get('/api/v3/aggregations/group-path/?media.path__startswith=%2Fed%00'), 400, 'invalid_character');
  // Stored data intact and still readable.
  const media = await get('/api/v4/media/edge/seen.png');
  t.is(media.status, 200);
});

test('NUL in GraphQL arguments, inline or in variables: a 400 error naming the argument', async (t) => {
  const inline = await server.call('POST', '/graphql', { key, json: { query: 'mutation { createOAuthApplication(name: "a\\u0000b") { id } }' } });
  t.is(inline.json.errors?.[0]?.extensions?.status_code, 400, inline.text);
  t.is(inline.json.errors[0].extensions.apiCode, 'invalid_character');
  t.regex(inline.json.errors[0].message, /name/);
  const vars = await server.call('POST', '/graphql', {
    key,
    json: { query: 'query($f: AggregationFilter) { aggregations(name: "group-site-path", filter: $f) { count } }', variables: { f: { siteDomain: { equals: 'x\u0000' } } } },
  });
  t.is(vars.json.errors?.[0]?.extensions?.status_code, 400, vars.text);
  t.is(vars.json.errors[0].extensions.apiCode, 'invalid_character');
  t.regex(vars.json.errors[0].message, /filter\.siteDomain\.equals/);
});

test('unpaired UTF-16 surrogates in JSON strings and keys: 400 invalid_character naming the field, never 500 nor U+FFFD stored (REST and GraphQL)', async (t) => {
  const lone = '\ud800';
  const meta = await server.call('PATCH', '/api/v4/media/edge/seen.png', { key, json: { metadata: { 'user.note': `a${lone}b` } } });
  errorBody(t, meta, 400, 'invalid_character');
  t.is(meta.json.errors[0].field, 'metadata.user.note');
  const keyed = await server.call('POST', '/api/v4/searches/', { key, json: { metadata: { [`user.k${'\udc00'}`]: 'x' } } });
  errorBody(t, keyed, 400, 'invalid_character');
  t.regex(keyed.json.errors[0].field, /^metadata\.user\.k\\udc00$/);
  const reg = await server.call('PUT', '/api/v4/media/edge/lone.png', { key, json: { url: await dataUri('#123456'), metadata: { 'user.x': lone } } });
  errorBody(t, reg, 400, 'invalid_character');
  // Text columns would have stored U+FFFD in silence: refused the same way.
  const hook = await server.call('POST', '/api/v4/account/webhooks/', { key, json: { url: 'https://hooks.example.com/x', events: ['match.created'], description: `d${lone}` } });
  errorBody(t, hook, 400, 'invalid_character');
  const tags = await server.call('PATCH', '/api/v3/aggregations/group-path/1/', { key, json: { tags: ['ok', `t${lone}`] } });
  errorBody(t, tags, 400, 'invalid_character');
  t.is(tags.json.errors[0].field, 'tags.1');
  const gql = await server.call('POST', '/graphql', { key, json: { query: 'mutation($n: String!) { createOAuthApplication(name: $n) { id } }', variables: { n: `a${lone}` } } });
  t.is(gql.json.errors?.[0]?.extensions?.apiCode, 'invalid_character', gql.text);
  // A surrogate pair is one character (an emoji): accepted and read back as sent.
  const emoji = await server.call('PATCH', '/api/v4/media/edge/seen.png', { key, json: { metadata: { 'user.mood': '\u{1F600}' } } });
  t.is(emoji.status, 200, emoji.text);
  const media = await get('/api/v4/media/edge/seen.png');
  t.is(media.json.metadata['user.mood'], '\u{1F600}');
  t.false('user.note' in media.json.metadata);
});

// ---- 3. pagination ----

const PAGED = [
  '/api/v3/account/oauth/applications/',
  '/api/v4/media/edge/',
  '/api/v4/searches/',
  '/api/v4/watermarking/',
  '/api/v4/account/webhooks/',
  '/api/v3/crawling/sessions/',
  '/api/v3/crawling/batches/',
  '/api/v3/aggregations/group-path/',
  '/api/v3/aggregations/group-site-path/',
  '/api/v3/aggregations/group-site-path-pageurl/',
];

test('a page far beyond the end: 400 invalid_page past the largest offset, an empty page with the true count below it', async (t) => {
  for (const path of PAGED) {
    for (const page of ['100000000000000000000', '92233720368547758', '1' + '0'.repeat(400)]) {
      errorBody(t, await get(`${path}?page=${page}`), 400, 'invalid_page');
    }
    const far = await get(`${path}?page=1000000`);
    t.is(far.status, 200, `${path}: ${far.text}`);
    const list = far.json.results ?? far.json.children;
    t.deepEqual(list, [], path);
    t.is(far.json.next, null, path);
  }
  for (const name of ['group-path', 'group-site-path', 'group-site-path-pageurl']) {
    const first = await get(`/api/v3/aggregations/${name}/`);
    t.is(first.json.count, 1, name);
    const far = await get(`/api/v3/aggregations/${name}/?page=1000000`);
    t.is(far.json.count, 1, `${name}: the count is the collection's, not the page's`);
  }
  const gql = await server.call('POST', '/graphql', { key, json: { query: '{ aggregations(name: "group-path", page: 1000000) { count results { id } } }' } });
  t.is(gql.json.data?.aggregations?.count, 1, gql.text);
  // Past the largest offset: REST's 400 invalid_page, as a BAD_USER_INPUT error (it used to be clamped).
  const beyond = await server.call('POST', '/graphql', { key, json: { query: '{ aggregations(name: "group-path", page: 2000000000) { count } }' } });
  t.like(beyond.json.errors?.[0]?.extensions, { code: 'BAD_USER_INPUT', apiCode: 'invalid_page' }, beyond.text);
});

// ---- 4. forged cursors ----

const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

test('forged cursors on every match list: 400 invalid_cursor', async (t) => {
  const forged = [
    { key: ['x', 1], dir: 'n' },
    { key: [1, 'x'], dir: 'n' },
    { key: ['2026-03-02T00:00:00.000Z', 1e30], dir: 'p' },
    { key: ['2026-03-02T00:00:00.000Z', -1], dir: 'n' },
    { key: ['2026-03-02T00:00:00.000Z', 1.5], dir: 'n' },
    { key: ['2026-03-02T00:00:00.000Z', '1'], dir: 'n' },
    { key: ['+275760-09-13T00:00:00.001Z', 1], dir: 'n' },
    { key: [], dir: 'n' },
    { key: ['2026-03-02T00:00:00.000Z', 1, 2], dir: 'n' },
    { key: ['2026-03-02T00:00:00.000Z', 1], dir: 'x' },
    { key: 'nope', dir: 'n' },
    [1, 2],
    null,
    'str',
  ];
  for (const path of ['/api/v4/matches/', '/api/v3/matches/web/', '/api/v3/matches/press/', '/api/v3/matches/credit/']) {
    for (const c of forged) errorBody(t, await get(`${path}?cursor=${cursor(c)}`), 400, 'invalid_cursor');
  }
  const gql = await server.call('POST', '/graphql', { key, json: { query: `{ matches(cursor: "${cursor({ key: ['x', 1], dir: 'n' })}") { count } }` } });
  t.is(gql.json.errors?.[0]?.extensions?.apiCode, 'invalid_cursor', gql.text);
  // A genuine cursor still pages.
  const first = await get('/api/v4/matches/?page_size=1');
  t.is(first.json.count, 1);
  const genuine = await get(`/api/v4/matches/?cursor=${cursor({ key: ['2026-03-03T00:00:00.000Z', 1e9], dir: 'n' })}`);
  t.is(genuine.status, 200, genuine.text);
  t.is(genuine.json.results.length, 1);
});

// ---- 5. errors raised before the router ----

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function raw(request: string): Promise<RawAnswer> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer in 10 s')), 10_000);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [status = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolve({ status: Number(status.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

test('errors of the HTTP layer (431, malformed request, bad Content-Length) use the error body and carry X-Request-Id', async (t) => {
  const cases: [string, string, number][] = [
    ['header too large', `GET /api/v4/account/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['malformed request line', 'GARBAGE\r\n\r\n', 400],
    ['bad content-length', 'POST /api/v4/searches/ HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    ['two content-lengths', 'POST /api/v4/searches/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', 400],
    ['bad header name', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400],
    ['bad chunk', 'POST /api/v4/searches/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400],
  ];
  for (const [label, request, status] of cases) {
    const res = await raw(request);
    t.is(res.status, status, `${label}: ${res.body}`);
    t.regex(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, label);
    t.regex(res.headers['content-type'] ?? '', /^application\/json/, label);
    const body = JSON.parse(res.body);
    t.is(body.status_code, status, label);
    t.is(typeof body.code, 'string', label);
    t.is(typeof body.details, 'string', label);
    t.false('statusCode' in body || 'error' in body, label);
  }
  // Framework errors raised after parsing but before the router carry the header too.
  const badUrl = await raw('GET /api/v4/media/%zz%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  t.true(badUrl.status >= 400 && badUrl.status < 500, badUrl.body);
  t.truthy(badUrl.headers['x-request-id']);
});

// ---- 6. spoofing names ----

test('bidi overrides, isolates and other invisible format characters in media and folder names: 400 invalid_name', async (t) => {
  const uri = await dataUri('#aa3300');
  for (const name of ['report\u202Efdp.exe', 'a\u202Ab', 'a\u202Bb', 'a\u202Cb', 'a\u202Db', 'x\u2066y', 'x\u2067y', 'x\u2068y', 'x\u2069y', 'zero\u200Bwidth', 'bom\uFEFF', 'lrm\u200E', 'soft\u00ADhyphen', 'c1\u0085ctl']) {
    const file = await server.call('PUT', `/api/v4/media/edge/${encodeURIComponent(name)}`, { key, json: { url: uri } });
    errorBody(t, file, 400, 'invalid_name');
    const folder = await server.call('PUT', `/api/v4/media/edge/${encodeURIComponent(name)}/inside.png`, { key, json: { url: uri } });
    errorBody(t, folder, 400, 'invalid_name');
  }
  const gql = await server.call('POST', '/graphql', {
    key,
    json: { query: 'mutation($p: String!, $u: String!) { registerMedia(path: $p, url: $u) { path } }', variables: { p: '/edge/report\u202Efdp.exe', u: uri } },
  });
  t.is(gql.json.errors?.[0]?.extensions?.apiCode, 'invalid_name', gql.text);
  t.is(gql.json.errors[0].extensions.status_code, 400);
  // Joiners that scripts and emoji need stay allowed.
  for (const name of ['\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.png', '\u{1F469}\u200D\u{1F4BB}.png', 'caf\u00E9 \u65E5\u672C.png']) {
    const res = await server.call('PUT', `/api/v4/media/edge/${encodeURIComponent(name)}`, { key, json: { url: uri } });
    t.is(res.status, 201, `${name}: ${res.text}`);
  }
  const listing = await get('/api/v4/media/edge/');
  t.false(listing.json.children.some((c: { path: string }) => /[\u202A-\u202E\u2066-\u2069]/.test(c.path)));
});

test('control and invisible formatting characters in names and labels (applications, webhooks, licensees, searches): 400 naming the field', async (t) => {
  const fieldsOf = (res: { json: any }) => (res.json?.errors ?? []).map((e: { field: string; code: string }) => `${e.field}:${e.code}`);
  for (const bad of ['bell\u0007', 'esc\u001b[31mred', 'line\nbreak', 'report\u202Efdp.exe', 'x\u2066y', 'zero\u200Bwidth', 'c1\u0085']) {
    const app = await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: bad } });
    errorBody(t, app, 400, 'invalid');
    t.deepEqual(fieldsOf(app), ['name:invalid_character'], app.text);
    const hook = await server.call('POST', '/api/v4/account/webhooks/', { key, json: { url: 'https://93.184.215.14/hook', events: ['match.created'], description: bad } });
    errorBody(t, hook, 400, 'invalid');
    t.true(fieldsOf(hook).includes('description:invalid_character'), hook.text);
    const licensee = await server.call('POST', '/api/v4/licensees/', { key, json: { name: bad, reference: bad, domain: 'example.com' } });
    errorBody(t, licensee, 400, 'invalid');
    t.deepEqual(fieldsOf(licensee), ['name:invalid_character', 'reference:invalid_character'], licensee.text);
    const search = await server.call('POST', '/api/v4/searches/', { key, json: { file: await dataUri('#445566'), name: bad, sync: false } });
    errorBody(t, search, 400, 'invalid');
    t.deepEqual(fieldsOf(search), ['name:invalid_character'], search.text);
  }
  // A search's name is bounded like other names, and an uploaded file's name used as the name is checked too.
  const long = await server.call('POST', '/api/v4/searches/', { key, json: { file: await dataUri('#445566'), name: 'n'.repeat(256), sync: false } });
  t.deepEqual(fieldsOf(long), ['name:max_length'], long.text);
  const boundary = 'labelboundary';
  const multipart = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="sync"\r\n\r\nfalse\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a\u202Egnp.exe"\r\nContent-Type: image/png\r\n\r\n`),
    await png('#112244'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const upload = await server.call('POST', '/api/v4/searches/', { key, body: multipart, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  errorBody(t, upload, 400, 'invalid');
  t.deepEqual(fieldsOf(upload), ['name:invalid_character'], upload.text);
  // Scripts, emoji and their joiners stay welcome.
  for (const good of ['Caf\u00E9 \u65E5\u672C', '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645', '\u{1F469}\u200D\u{1F4BB} team']) {
    const app = await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: good } });
    t.is(app.status, 201, app.text);
    t.is(app.json.name, good);
    const licensee = await server.call('POST', '/api/v4/licensees/', { key, json: { name: good, domain: 'example.com' } });
    t.is(licensee.status, 201, licensee.text);
    const search = await server.call('POST', '/api/v4/searches/', { key, json: { file: await dataUri('#445566'), name: good, sync: false } });
    t.is(search.status, 201, search.text);
    t.is(search.json.name, good);
  }
  const apps = await get('/api/v3/account/oauth/applications/');
  t.false(apps.json.results.some((a: { name: string }) => /[\u0000-\u001f\u202A-\u202E\u2066-\u2069]/.test(a.name)));
});

test('names that display as something else: slash look-alikes, dot look-alikes, blank or padded names are 400 invalid_name', async (t) => {
  const uri = await dataUri('#0a0b0c');
  for (const name of ['a\u2215b.png', 'a\u2044b.png', 'a\uFF0Fb.png', 'a\u29F8b.png', '\uFF0E\uFF0E', '\uFF0Ehidden.png', '\u2024\u2024', ' x.png', 'x.png ', '\u00A0', '\u3000', 'x.png\u2003']) {
    const file = await server.call('PUT', `/api/v4/media/edge/${encodeURIComponent(name)}`, { key, json: { url: uri } });
    errorBody(t, file, 400, 'invalid_name');
    const folder = await server.call('PUT', `/api/v4/media/edge/${encodeURIComponent(name)}/inside.png`, { key, json: { url: uri } });
    errorBody(t, folder, 400, 'invalid_name');
  }
  // Inner spaces, a backslash, the ordinary full stop and compatibility characters elsewhere are names like any other.
  for (const name of ['my photo.png', 'a\\b.png', 'v1.2.png', '\uFF21\uFF22.png']) {
    const res = await server.call('PUT', `/api/v4/media/edge/${encodeURIComponent(name)}`, { key, json: { url: uri } });
    t.is(res.status, 201, `${name}: ${res.text}`);
  }
  const listing = await get('/api/v4/media/edge/?page_size=100');
  t.false(listing.json.children.some((c: { path: string }) => /[\u2215\u2044\uFF0F\u29F8\uFF0E\u2024]|\s$/.test(c.path)));
});

test('page and page_size written with more digits than JavaScript holds exactly: page_size capped, page 400 naming the largest', async (t) => {
  for (const path of ['/api/v4/media/edge/', '/api/v4/matches/', '/api/v3/aggregations/group-path/', '/api/v3/crawling/sessions/']) {
    const huge = await get(`${path}?page_size=${'9'.repeat(30)}`);
    t.is(huge.status, 200, `${path}: ${huge.text}`);
    const zeros = await get(`${path}?page_size=${'0'.repeat(30)}1`);
    t.is(zeros.status, 200, `${path}: ${zeros.text}`);
    const page = await get(`${path}?page=${'9'.repeat(30)}`);
    errorBody(t, page, 400, 'invalid_page');
    t.regex(page.json.details, /at most \d+/, page.text);
  }
  errorBody(t, await get(`/api/v4/media/edge/?page_size=${'0'.repeat(30)}`), 400, 'invalid_page_size');
});

test('NUL in a path parameter (a tag, an aggregation field, a file name) of an existing object: 400 invalid_character naming it, never 500', async (t) => {
  const [match] = (await get('/api/v4/matches/')).json.results;
  const [group] = (await get('/api/v3/aggregations/group-path/')).json.results;
  for (const [method, path, field] of [
    ['PUT', `/api/v4/matches/${match.id}/tags/a%00b/`, 'tag'],
    ['DELETE', `/api/v4/matches/${match.id}/tags/%00/`, 'tag'],
    ['GET', `/api/v3/aggregations/group-path/${group._id}/tags%00/`, 'field'],
    ['PUT', `/api/v3/aggregations/group-path/${group._id}/%00/`, 'field'],
    ['GET', `/api/v4/media-files/${mediaId}/image%00`, 'file'],
  ] as const) {
    const res = await server.call(method, path, { key, json: method === 'PUT' && path.includes('aggregations') ? { content: 'x' } : undefined });
    errorBody(t, res, 400, 'invalid_character');
    t.is(res.json.errors[0].field, field, path);
  }
  const after = await get(`/api/v4/matches/${match.id}/`);
  t.deepEqual(after.json.tags, match.tags);
});

test('any other HTTP method on a known path (TRACE, PROPFIND, MKCOL...) is 405 with Allow, as PUT there is; on an unknown path 404', async (t) => {
  // Raw requests: fetch refuses TRACE.
  const send = (method: string, path: string) => raw(`${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${key}\r\nConnection: close\r\n\r\n`);
  for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'PURGE', 'SEARCH']) {
    const res = await send(method, '/api/v4/account/');
    t.is(res.status, 405, `${method}: ${res.body}`);
    t.is(JSON.parse(res.body).code, 'method_not_allowed', method);
    t.is(res.headers.allow, 'DELETE, GET, HEAD, OPTIONS', method);
    t.truthy(res.headers['x-request-id'], method);
    const unknown = await send(method, '/api/v4/nothing-here/');
    t.is(unknown.status, 404, `${method}: ${unknown.body}`);
  }
});

test('a request whose body never arrives in full is answered 408 request_timeout and closed, not held open forever', async (t) => {
  const started = Date.now();
  const res = await raw(`POST /api/v4/account/settings/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lang":`);
  t.is(res.status, 408, res.body);
  t.is(JSON.parse(res.body).code, 'request_timeout');
  t.truthy(res.headers['x-request-id']);
  t.true(Date.now() - started < 9_500, `${Date.now() - started} ms`);
  t.is((await get('/api/v4/account/settings/')).json.lang, 'en', 'nothing was changed');
});

test('an unreadable video is 422 video_unreadable whose details name no server path (registration and search)', async (t) => {
  const fake = Buffer.concat([Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex'), Buffer.alloc(4096, 0x5a)]);
  const put = await server.call('PUT', '/api/v4/media/edge/fake.mp4', { key, body: fake, headers: { 'content-type': 'video/mp4' } });
  errorBody(t, put, 422, 'video_unreadable');
  const boundary = 'videoboundary';
  const multipart = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="sync"\r\n\r\nfalse\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="q.mp4"\r\nContent-Type: video/mp4\r\n\r\n`),
    fake,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const search = await server.call('POST', '/api/v4/searches/', { key, body: multipart, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  errorBody(t, search, 422, 'video_unreadable');
  for (const res of [put, search]) {
    t.notRegex(res.json.details, /\/tmp|filigrane-video|\binput\b:|\/[a-z]+\//i, res.text);
    t.regex(res.json.details, /^not a readable video/, res.text);
  }
});
