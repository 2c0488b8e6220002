import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { syntheticPhoto } from '@filigrane/vision';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { ApiKeyService, IdentityService } from '@filigrane/plugin-auth';

// Property-based fuzzing of every operation the server itself describes: the REST operations of
// its OpenAPI document (/api/schema/) and the fields of its GraphQL schema (introspection). A new
// route or resolver is fuzzed without editing this file. The seed and the number of runs are fixed
// so a failure replays exactly (FUZZ_SEED / FUZZ_RUNS override them to explore further).
const SEED = Number(process.env.FUZZ_SEED ?? 19_011);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20); // per REST operation and per GraphQL field
const TIMEOUT = 150_000;

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

let server: TestServer;
let fuzzKey: string;
let fuzzId: number;
let sink: Server;
let sinkUrl: string;
const sinkHits: string[] = [];
/** What the fuzzed account must never alter: another account's media, and the fuzz account's own one. */
const baselines: { key: string; path: string; view: Json; files: Record<string, string> }[] = [];

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test.before(async () => {
  // Anything that reaches this listener is a request-forgery (SSRF) hole: the server must refuse loopback.
  sink = createServer((req, res) => {
    sinkHits.push(`${req.method} ${req.url}`);
    res.end('ok');
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  // The test server's rate limits are far above anything a client may send (see startTestServer): the
  // fuzzer fires hundreds of requests per second from one account.
  server = await startTestServer({ plugins: defaultPlugins(), workers: false, env: { FETCH_ALLOW_HOSTS: '' } });
  const owner = await server.createAccount('owner');
  ({ apiKey: fuzzKey, id: fuzzId } = await server.createAccount('fuzz'));
  // Every permission a client can be given (press ingestion), so that no route stops at a 403.
  await server.app.container.get(IdentityService).grant(fuzzId, 'press:ingest');
  for (const [key, path, seed] of [[owner.apiKey, 'owner/baseline/photo.jpg', 1] as const, [fuzzKey, 'fuzz/keep/photo.jpg', 2] as const]) {
    const photo = await sharp(await syntheticPhoto(seed, 320, 240)).jpeg({ quality: 90 }).toBuffer();
    const put = await server.call('PUT', `/api/v4/media/${path}`, { key, body: photo, headers: { 'content-type': 'image/jpeg' } });
    if (put.status >= 300) throw new Error(`baseline ${path}: ${put.status} ${put.text}`);
    const view = (await server.call('GET', `/api/v4/media/${path}`, { key })).json;
    // Every file the media links to (image, thumbnail, registration), by content hash.
    const files: Record<string, string> = {};
    for (const url of JSON.stringify(view).match(/\/api\/v4\/media-files\/[^"]+/g) ?? []) {
      const bytes = await fetch(new URL(url, server.url), { headers: { authorization: `Token ${key}` } });
      if (bytes.status !== 200) throw new Error(`baseline file ${url}: ${bytes.status}`);
      files[url] = sha256(Buffer.from(await bytes.arrayBuffer()));
    }
    if (Object.keys(files).length === 0) throw new Error(`baseline ${path} links to no file: ${JSON.stringify(view)}`);
    baselines.push({ key, path, view, files });
  }
});
test.after.always(async () => {
  await server?.close();
  sink?.close();
});

// ---------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------

const FIXED_STRINGS = [
  '',
  '\u0000',
  'a\u0000b',
  'name\u0000.jpg',
  'report\u202Efdp.exe',
  '\u2066isolate\u2069',
  '\u202A\u202B\u202C\u202D\u202E',
  '\uFEFFbom',
  '\uD800',
  '\uDFFF\uD800',
  '😀'.repeat(40),
  'x'.repeat(256),
  'x'.repeat(70_000),
  'é'.repeat(40_000),
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '/etc/passwd',
  '....//....//etc/passwd',
  '.',
  '..',
  '/',
  '//',
  ' ',
  '\r\nX-Injected: 1',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE media; --',
  '=HYPERLINK("http://evil")',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e999',
  '99999999999999999999999999',
  '2147483648',
  '-9223372036854775809',
  '0x7fffffff',
  '1.5',
  'true',
  'null',
  '[]',
  '{}',
  '%',
  '%ff%fe',
  '%00',
  '%c0%ae%c0%ae/',
];

const SSRF_URLS = () => [
  sinkUrl + '/ssrf',
  'http://127.0.0.1/',
  'http://localhost/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://0.0.0.0/',
  'http://0/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://127.1/',
  'http://10.0.0.1/',
  'http://192.168.1.1/',
  'http://172.16.0.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://[fd00::1]/',
  'http://100.100.100.200/',
  `http://user:pass@127.0.0.1:${new URL(sinkUrl).port}/`,
  'file:///etc/passwd',
  'gopher://127.0.0.1:25/_HELO',
  'ftp://127.0.0.1/',
  'javascript:alert(1)',
  'data:,x',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:image/jpeg;base64,/9j/4AAQ',
  'data:application/lmk;base64,' + Buffer.concat([Buffer.from('FLMK'), Buffer.alloc(40, 0xff)]).toString('base64'),
  'http://[::1',
  'http://%zz/',
  'http://example.com/%E0%A4%A',
  'http://' + 'a'.repeat(300) + '.com/',
  'https://example.com/' + 'p'.repeat(5000),
];

/** Base64 JSON that decodes cleanly but lies: wrong types, wrong shapes, absurd values (a forged cursor). */
const forgedCursor = fc
  .tuple(
    fc.oneof(
      fc.record({ dir: fc.constantFrom('n', 'p', 'x', 1, null), key: fc.array(fc.oneof(fc.string(), fc.double(), fc.integer(), fc.constantFrom('\u0000', 'x'.repeat(5000), 1e308, -1, 2 ** 63), fc.jsonValue({ maxDepth: 3 })), { maxLength: 4 }) }),
      fc.jsonValue({ maxDepth: 4 }),
    ),
    fc.constantFrom('base64url', 'base64'),
  )
  .map(([v, enc]) => Buffer.from(JSON.stringify(v) ?? 'null').toString(enc as BufferEncoding));

const nastyChar = fc.constantFrom('\u0000', '\u202E', '\u2066', '\uD800', '/', '\\', '..', '%', '\n', '"', "'", '<', '\u00ff', '😀', '\u0301');
const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FIXED_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: fc.oneof(nastyChar, fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })), maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constant(null).chain(() => fc.constantFrom(...SSRF_URLS())) },
  { weight: 1, arbitrary: forgedCursor },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? '') },
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, -(2 ** 31) - 1, -1, 0, -0, 0.5, 1.5, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, 1e21),
  fc.double(), // NaN and ±Infinity become null in JSON: a wrong type
  fc.integer(),
);

/** Deeply nested JSON: arrays and objects some hundreds of levels down. */
const nested = fc.integer({ min: 50, max: 2000 }).chain((depth) => fc.constantFrom('array', 'object').map((kind) => {
  let v: Json = 'leaf';
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}));

const wrongType: fc.Arbitrary<Json> = fc.oneof(
  fc.boolean(),
  fc.constant(null),
  hostileNumber,
  hostileString,
  fc.array(fc.oneof(hostileString, hostileNumber), { maxLength: 5 }),
  fc.constant(Array(5000).fill('t')),
  fc.dictionary(fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'user.\u0000')), fc.oneof(hostileString, hostileNumber), { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 5 }),
  nested,
);

// ---------------------------------------------------------------------------------------------
// Values from the document's schemas: valid ones reach deep code, hostile ones test the guards
// ---------------------------------------------------------------------------------------------

function resolveRef(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) s = s.$ref.split('/').slice(1).reduce((o: Json, k: string) => o?.[k], doc);
  return s ?? {};
}

/** A value the schema accepts (roughly: formats and patterns are approximated). */
function validValue(doc: Json, raw: Json, depth = 0): fc.Arbitrary<Json> {
  const schema = resolveRef(doc, raw);
  if (depth > 4) return fc.constant(null);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s: Json) => validValue(doc, s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -5, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(doc, schema.items ?? {}, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      const props: Record<string, fc.Arbitrary<Json>> = {};
      for (const [name, s] of Object.entries(schema.properties ?? {})) props[name] = validValue(doc, s, depth + 1);
      if (Object.keys(props).length === 0) return fc.dictionary(fc.constantFrom('user.a', 'user.b', 'x'), fc.oneof(fc.string({ maxLength: 10 }), fc.boolean()), { maxKeys: 2 });
      return fc.record(props, { requiredKeys: schema.required?.filter((r: string) => r in props) ?? [] });
    }
    case 'string':
      if (schema.format === 'uri' || /url|uri/i.test(schema.description ?? '')) return fc.constantFrom('https://example.com/a.jpg', 'https://example.org/');
      if (schema.format === 'date' || schema.format === 'date-time') return fc.constantFrom('2024-01-01', '2024-01-01T00:00:00Z');
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 12, 12) });
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
}

/** Mostly-valid or hostile, per field, so that one hostile field meets otherwise acceptable input. */
const fuzzValue = (doc: Json, schema: Json): fc.Arbitrary<Json> =>
  fc.oneof({ weight: 4, arbitrary: validValue(doc, schema) }, { weight: 2, arbitrary: hostileString }, { weight: 1, arbitrary: wrongType });

function bodyObject(doc: Json, raw: Json): fc.Arbitrary<Json> {
  const schema = resolveRef(doc, raw);
  const props: Record<string, fc.Arbitrary<Json>> = {};
  for (const [name, s] of Object.entries<Json>(schema.properties ?? {})) props[name] = fuzzValue(doc, s);
  const known = fc.record(props, { requiredKeys: (schema.required ?? []).filter((r: string) => r in props) });
  const extra = fc.dictionary(fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'user.x', 'user.\u0000', 'page_size')), wrongType, { maxKeys: 2 });
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(known, extra, fc.boolean()).map(([k, e, withExtra]) => (withExtra ? { ...e, ...k } : k)) },
    { weight: 1, arbitrary: wrongType },
  );
}

// ---------------------------------------------------------------------------------------------
// Requests and what every answer must satisfy
// ---------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  requestId: string | null;
  text: string;
  json: Json;
}

const wellFormed = (s: string) => (s as unknown as { toWellFormed(): string }).toWellFormed();
const enc = (v: Json) => encodeURIComponent(wellFormed(typeof v === 'string' ? v : JSON.stringify(v) ?? ''));

/**
 * One request over node:http, which sends the path exactly as given: fetch (WHATWG URL) would resolve
 * `%2e%2e` segments itself, and a hostile client does not.
 */
async function rawRequest(method: string, path: string, headers: Record<string, string>, body: Buffer | undefined): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, method, path, headers: body ? { ...headers, 'content-length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path.slice(0, 200)}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function send(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer | FormData } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Token ${fuzzKey}`, ...init.headers };
  let body: Buffer | undefined;
  if (init.body instanceof FormData) {
    // The multipart encoding (boundary and all) as fetch would send it.
    const encoded = new Response(init.body);
    headers['content-type'] = encoded.headers.get('content-type')!;
    body = Buffer.from(await encoded.arrayBuffer());
  } else if (init.body !== undefined) body = Buffer.from(init.body);
  const raw = await rawRequest(method, path, headers, body);
  const res = { status: raw.status, headers: { get: (h: string) => (raw.headers[h] === undefined ? null : String(raw.headers[h])) }, text: async () => raw.text };
  const text = await res.text();
  let json: Json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.status < 300) harvest(json);
  // Rotating the API key (REST `api_key`, GraphQL `rotateAccountApiKey`) is a legitimate operation the
  // fuzzer may hit: carry on with the new key at once, as failed credentials are throttled per address.
  const newKey = res.status < 300 ? /"(fk_[A-Za-z0-9_-]{20,})"/.exec(raw.text)?.[1] : undefined;
  if (newKey) fuzzKey = newKey;
  else if (res.status === 401 && (await fetch(new URL('/api/v4/account/', server.url), { headers: { authorization: `Token ${fuzzKey}` } })).status === 401) {
    fuzzKey = (await server.app.container.get(ApiKeyService).reveal(fuzzId))!; // rotated through GraphQL: read the new key
  }
  return { status: res.status, requestId: res.headers.get('x-request-id'), text, json };
}

/**
 * Identifiers and names the server itself handed out (ids, aggregation names, image digests), so that
 * path parameters also name things that exist and the fuzzing reaches past the 404s.
 */
const seen: string[] = [];
const IDENTIFYING = new Set(['id', '_id', 'name', 'md5', 'page', 'client_id']);
function harvest(value: Json): void {
  const stack = [value];
  for (let n = 0; stack.length && n < 1000; n++) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    for (const [k, x] of Object.entries(v)) {
      const s = String(x);
      if (IDENTIFYING.has(k) && (typeof x === 'number' || (typeof x === 'string' && x.length <= 100))) {
        if (seen.includes(s)) seen.splice(seen.indexOf(s), 1);
        seen.push(s);
      } else if (x && typeof x === 'object') stack.push(x);
    }
  }
  seen.splice(0, Math.max(0, seen.length - 40)); // the most recent: operations come listed before their items
}
const seenValue = fc.oneof({ weight: 3, arbitrary: fc.nat({ max: 7 }) }, { weight: 1, arbitrary: fc.nat() }).map((i) => seen[seen.length - 1 - (i % Math.max(seen.length, 1))] ?? '1'); // mostly the newest

/**
 * Every answer: no 5xx and a request id. A 4xx carries the spec's error body; GraphQL's own answers
 * (on /graphql) carry a list of errors instead, each with the same code, status_code and details.
 */
function problemsOf(answer: Answer, graphql = false): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  if (!answer.requestId) problems.push('no X-Request-Id');
  const b = answer.json;
  if (graphql && Array.isArray(b?.errors)) {
    for (const e of b.errors) {
      const x = e?.extensions ?? {};
      if (typeof x.code !== 'string' || typeof x.status_code !== 'number' || !('details' in x)) problems.push(`an error without code, status_code and details: ${short(e)}`);
      else if (x.status_code >= 500 || x.code === 'INTERNAL_SERVER_ERROR') problems.push(`internal error: ${short(e)}`);
    }
  } else if (graphql && answer.status === 200 && b && typeof b === 'object' && 'data' in b) {
    // a GraphQL result without errors
  } else if (answer.status >= 400 && answer.status < 500) {
    if (!b || typeof b !== 'object') problems.push('4xx without a JSON error body');
    else {
      if (b.status_code !== answer.status) problems.push(`status_code ${JSON.stringify(b.status_code)} ≠ ${answer.status}`);
      if (typeof b.code !== 'string' || !b.code) problems.push('no error code');
      if (!('details' in b)) problems.push('no details');
    }
  }
  return problems;
}

const short = (v: Json) => {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > 160 ? `${s.slice(0, 160)}…(${s.length})` : s;
};

async function assertBaselinesIntact(t: ExecutionContext) {
  for (const b of baselines) {
    const key = b === baselines[1] ? fuzzKey : b.key;
    const now = await server.call('GET', `/api/v4/media/${b.path}`, { key });
    t.is(now.status, 200, `${b.path} is still there`);
    t.deepEqual(now.json, b.view, `${b.path} is unchanged`);
    for (const [url, hash] of Object.entries(b.files)) {
      const file = await fetch(new URL(url, server.url), { headers: { authorization: `Token ${key}` } });
      t.is(file.status, 200, `${url} is still served`);
      t.is(sha256(Buffer.from(await file.arrayBuffer())), hash, `${url} has the same bytes`);
    }
  }
  t.deepEqual(sinkHits, [], 'no request reached the loopback listener (SSRF)');
}

// ---------------------------------------------------------------------------------------------
// REST: every operation of /api/schema/
// ---------------------------------------------------------------------------------------------

// Parameters clients send whether or not an operation documents them (pagination, cursors, common
// filters): they must be refused or ignored, never crash.
const UNDOCUMENTED_QUERY = ['page', 'page_size', 'cursor', 'format', 'ordering', 'id', 'date_created__gte', 'tags', '_id__startswith', 'filename', 'status', 'q', '__proto__', 'constructor', 'toString__gte', 'hasOwnProperty'];

const baselineIds = () => baselines.flatMap((b) => Object.keys(b.files).map((u) => u.split('/')[4]!));
const ID_VALUES = () => [...new Set(baselineIds()), '1', '2', '0', '-1', '2147483648', '9007199254740993', '1e3', '00000000-0000-0000-0000-000000000000', 'a'.repeat(24)];

/**
 * The fuzzed account may legitimately delete its own home or folders (recursively), so the media
 * paths never name its baseline or an ancestor of it: what happens to it then is hostile input's doing.
 */
const OWN_BASELINE_AND_ANCESTORS = new Set(['', 'fuzz', 'fuzz/keep', 'fuzz/keep/photo.jpg']);

/** The media path as the server resolves it: segments decoded, empty ones dropped. */
function asServerSees(p: string): string {
  const decode = (x: string) => {
    try {
      return decodeURIComponent(x).normalize('NFC');
    } catch {
      return x;
    }
  };
  return p.split('/').filter(Boolean).map(decode).join('/');
}

function pathValue(name: string): fc.Arbitrary<string> {
  const encoded = hostileString.map(enc);
  const known = fc.constantFrom(...ID_VALUES());
  // Raw forms that survive URL parsing: encoded dots and slashes, invalid UTF-8, NUL.
  const raw = fc.constantFrom('%2e%2e', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%2f..%2f', '%ff%fe', '%00', 'a%00b', '%c0%ae', '%E0%A4%A', '%252e%252e');
  if (name === 'path') {
    // A media path: a hierarchy, aimed at the baselines of both accounts among others.
    const segment = fc.oneof(encoded, raw, fc.constantFrom('owner', 'fuzz', 'baseline', 'photo.jpg', 'x'));
    return fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => s.join('/')).filter((p) => !OWN_BASELINE_AND_ANCESTORS.has(asServerSees(p))),
      fc.constantFrom('owner/baseline/photo.jpg', 'fuzz/keep/photo.jpg%00', 'fuzz/keep/photo.jpg/%2e%2e', 'fuzz/' + 'd/'.repeat(120) + 'e', 'fuzz/keep/' + '%2e%2e/'.repeat(4) + 'owner/baseline/photo.jpg'),
    );
  }
  return fc.oneof({ weight: 2, arbitrary: known }, { weight: 2, arbitrary: seenValue.map(enc) }, { weight: 3, arbitrary: encoded }, { weight: 1, arbitrary: raw });
}

function queryValue(doc: Json, name: string, schema: Json): fc.Arbitrary<string> {
  const numbers = hostileNumber.map(String);
  const asText = (v: Json) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
  const base = fc.oneof({ weight: 3, arbitrary: validValue(doc, schema).map(asText) }, hostileString, numbers, fc.constantFrom('NaN', '-Infinity', '1e999', '0x10', ' 1', '1,2', '%ff', '%00'));
  return name === 'cursor' ? fc.oneof(forgedCursor, base) : base;
}

interface Operation {
  method: string;
  template: string;
  pathParams: string[];
  query: { name: string; schema: Json }[];
  bodies: { type: string; schema: Json; required: boolean }[];
}

function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params: Json[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolveRef(doc, p));
      ops.push({
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        bodies: Object.entries<Json>(resolveRef(doc, op.requestBody)?.content ?? {}).map(([type, c]) => ({ type, schema: c.schema ?? {}, required: !!op.requestBody.required })),
      });
    }
  }
  return ops;
}

interface RestCase {
  path: Record<string, string>;
  query: [string, string][];
  body: { type: string; value: Json } | null;
  raw: Buffer | null;
}

function restCase(doc: Json, op: Operation): fc.Arbitrary<RestCase> {
  const path = fc.record(Object.fromEntries(op.pathParams.map((n) => [n, pathValue(n)])) as Record<string, fc.Arbitrary<string>>);
  const documented = op.query.map((q) => fc.option(queryValue(doc, q.name, q.schema).map((v): [string, string] => [q.name, v]), { nil: undefined, freq: 3 }));
  const undocumented = fc.array(fc.constantFrom(...UNDOCUMENTED_QUERY).chain((n) => queryValue(doc, n, {}).map((v): [string, string] => [n, v])), { maxLength: op.method === 'GET' ? 3 : 1 });
  const query = fc.tuple(fc.tuple(...documented), undocumented).map(([d, u]) => [...d.filter((x): x is [string, string] => !!x), ...u]);
  const bodies = op.bodies.map((b) => {
    if (/json|form/.test(b.type)) return bodyObject(doc, b.schema).map((value) => ({ type: b.type, value }));
    // A binary upload (image, video, .lmk): a known magic number followed by junk.
    return fc.tuple(fc.constantFrom('ffd8ffe0', '89504e470d0a1a0a', '47494638', '464c4d4b', '000000186674797069736f6d', '1a45dfa3', ''), fc.uint8Array({ maxLength: 256 })).map(([magic, junk]) => ({ type: b.type, value: Buffer.concat([Buffer.from(magic, 'hex'), junk]) }));
  });
  const body = bodies.length ? fc.option(fc.oneof(...bodies), { nil: null, freq: op.bodies[0]!.required ? 8 : 2 }) : fc.constant(null);
  // Sometimes bytes that are not what the content type says (broken JSON, invalid UTF-8, deep nesting).
  const malformed = fc.constantFrom(Buffer.from('{"a":'), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from('['.repeat(5000) + ']'.repeat(5000)), Buffer.from('{"a":1,"a":2,"__proto__":{"x":1}}'));
  const raw = fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: malformed });
  return fc.record({ path, query, body, raw });
}

function multipartOf(value: Json): FormData {
  const form = new FormData();
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      const text = wellFormed(typeof v === 'string' ? v : JSON.stringify(v) ?? '');
      if (k === 'file') form.append(k, new Blob([text], { type: 'image/jpeg' }), text.slice(0, 200) || 'x.jpg');
      else form.append(wellFormed(k), text);
    }
  } else form.append('file', new Blob([Buffer.from('ffd8ff', 'hex')]), '\u0000.jpg');
  return form;
}

async function runRest(op: Operation, c: RestCase): Promise<{ label: string; answer: Answer }> {
  const url = op.template.replace(/\{(\w+)\}/g, (_, n: string) => c.path[n] ?? 'x') + (c.query.length ? `?${c.query.map(([k, v]) => `${enc(k)}=${/^%[\x21-\x7e]*$/.test(v) ? v : enc(v)}`).join('&')}` : '');
  const headers: Record<string, string> = {};
  let body: string | Buffer | FormData | undefined;
  if (op.method !== 'GET' && c.raw) {
    headers['content-type'] = c.body?.type ?? 'application/json';
    body = c.raw;
  } else if (op.method !== 'GET' && c.body) {
    const { type, value } = c.body;
    if (type === 'application/json') {
      headers['content-type'] = type;
      body = JSON.stringify(value) ?? 'null';
    } else if (type === 'multipart/form-data') body = multipartOf(value);
    else if (type === 'application/x-www-form-urlencoded') {
      headers['content-type'] = type;
      body = Object.entries(value && typeof value === 'object' ? value : { value }).map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    } else {
      headers['content-type'] = type;
      body = value as Buffer;
    }
  }
  const label = `${op.method} ${short(url)} ${c.body ? `[${c.body.type}] ${short(c.raw ? c.raw.toString('latin1') : c.body.value)}` : ''}`;
  return { label, answer: await send(op.method, url, { headers, body }) };
}

test.serial('REST: hostile path, query and body values on every operation of the OpenAPI document', async (t) => {
  t.timeout(TIMEOUT);
  const started = Date.now();
  const doc = (await send('GET', '/api/schema/')).json;
  const ops = operationsOf(doc);
  t.true(ops.length > 60, `${ops.length} operations described`);
  const parameters = ops.reduce((n, op) => n + op.pathParams.length + op.query.length + op.bodies.reduce((m, b) => m + Object.keys(resolveRef(doc, b.schema).properties ?? {}).length, 0), 0);
  const failures: string[] = [];
  let requests = 0;
  const statuses: Record<string, number> = {};
  for (const [i, op] of ops.entries()) {
    // GraphQL has its own property below (the REST view of /graphql is still fuzzed here, lightly).
    await fc.assert(
      fc.asyncProperty(restCase(doc, op), async (c) => {
        const t0 = Date.now();
        let outcome: Awaited<ReturnType<typeof runRest>>;
        try {
          outcome = await runRest(op, c);
        } catch (err) {
          failures.push(`${op.method} ${op.template} ${short(c)} -> no answer: ${(err as Error).message}`); // reset, hang
          return true;
        }
        const { label, answer } = outcome;
        requests++;
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, `${answer.status} ${Date.now() - t0}ms ${op.method} ${op.template} ${label.slice(0, 300)} ${answer.text.slice(0, 200)}\n`);
        const problems = problemsOf(answer, op.template === '/graphql');
        if (problems.length) failures.push(`${label} -> ${answer.status} ${problems.join(', ')}: ${answer.text.slice(0, 300)}`);
        return true; // collect every failure rather than shrinking the first
      }),
      { seed: SEED + i, numRuns: RUNS, endOnFailure: true },
    );
  }
  t.log(`${ops.length} operations, ${parameters} parameters (path, query, body fields), ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}, statuses ${JSON.stringify(statuses)}`);
  t.deepEqual(failures, []);
  await assertBaselinesIntact(t);
});

// ---------------------------------------------------------------------------------------------
// GraphQL: every query and mutation field of the schema, by introspection
// ---------------------------------------------------------------------------------------------

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
const INTROSPECTION = `{ __schema { queryType { name } mutationType { name } types { name kind
  fields { name type { ${TYPE_REF} } args { name type { ${TYPE_REF} } } }
  inputFields { name type { ${TYPE_REF} } } enumValues { name } } } }`;

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}

const typeName = (t: TypeRef): string => (t.kind === 'NON_NULL' ? `${typeName(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeName(t.ofType!)}]` : t.name!);
const namedType = (t: TypeRef): TypeRef => (t.ofType ? namedType(t.ofType) : t);

function graphqlValue(types: Map<string, Json>, t: TypeRef, depth = 0): fc.Arbitrary<Json> {
  if (t.kind === 'NON_NULL') return fc.oneof({ weight: 12, arbitrary: graphqlValue(types, t.ofType!, depth) }, { weight: 1, arbitrary: fc.constant(null) });
  const nullable = (a: fc.Arbitrary<Json>) => fc.option(a, { nil: null, freq: 10 });
  if (t.kind === 'LIST') return nullable(fc.oneof(fc.array(graphqlValue(types, t.ofType!, depth + 1), { maxLength: 4 }), fc.constant(Array(3000).fill('t'))));
  const type = types.get(t.name!);
  // A value of the wrong type now and then: the server must refuse it cleanly.
  const wrong = (a: fc.Arbitrary<Json>) => nullable(fc.oneof({ weight: 8, arbitrary: a }, { weight: 1, arbitrary: wrongType }));
  switch (type?.kind) {
    case 'ENUM':
      return wrong(fc.constantFrom(...type.enumValues.map((e: Json) => e.name)));
    case 'INPUT_OBJECT': {
      if (depth > 4) return fc.constant(null);
      const fields: Record<string, fc.Arbitrary<Json>> = {};
      for (const f of type.inputFields) fields[f.name] = graphqlValue(types, f.type, depth + 1);
      return wrong(fc.record(fields, { requiredKeys: type.inputFields.filter((f: Json) => f.type.kind === 'NON_NULL').map((f: Json) => f.name) }));
    }
    default:
      switch (t.name) {
        case 'Int':
          return wrong(fc.oneof(fc.integer({ min: -2, max: 100 }), fc.constantFrom(2 ** 31 - 1, -(2 ** 31), 2 ** 31, 0)));
        case 'Float':
          return wrong(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), hostileNumber));
        case 'Boolean':
          return wrong(fc.boolean());
        case 'ID':
          return wrong(fc.oneof(fc.constantFrom(...ID_VALUES()), seenValue, hostileString));
        case 'String':
          return wrong(fc.oneof({ weight: 1, arbitrary: fc.constantFrom('owner/baseline/photo.jpg', 'fuzz/keep/x.jpg', 'https://example.com/a.jpg', 'web', 'press', 'credit', 'match.created', ...ID_VALUES()) }, { weight: 1, arbitrary: seenValue }, { weight: 3, arbitrary: hostileString }));
        default: // custom scalars (JSON objects, dates): anything at all
          return nullable(fc.oneof(wrongType, fc.dictionary(fc.oneof(hostileString, fc.constantFrom('user.a', '__proto__', '_id__startswith', 'id', 'date_created__gte')), fc.oneof(hostileString, hostileNumber, wrongType), { maxKeys: 3 })));
      }
  }
}

test.serial('GraphQL: hostile arguments on every query and mutation field of the schema', async (t) => {
  t.timeout(TIMEOUT);
  const started = Date.now();
  const intro = await send('POST', '/graphql', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: INTROSPECTION }) });
  t.is(intro.status, 200, intro.text.slice(0, 300));
  const schema = intro.json.data.__schema;
  const types = new Map<string, Json>(schema.types.map((ty: Json) => [ty.name, ty]));
  const roots = [['query', schema.queryType.name], ['mutation', schema.mutationType?.name]].filter(([, n]) => n) as [string, string][];
  const failures: string[] = [];
  let requests = 0;
  let fields = 0;
  let args = 0;
  let seedOffset = 1000;
  const statuses: Record<string, number> = {};
  for (const [keyword, root] of roots) {
    for (const field of types.get(root).fields) {
      fields++;
      args += field.args.length;
      // `__typename` is a valid selection on any object, interface or union: the arguments are what is fuzzed.
      const returned = types.get(namedType(field.type).name!);
      const selection = ['OBJECT', 'INTERFACE', 'UNION'].includes(returned?.kind) ? ' { __typename }' : '';
      const declared = field.args.map((a: Json) => `$${a.name}: ${typeName(a.type)}`).join(', ');
      const passed = field.args.map((a: Json) => `${a.name}: $${a.name}`).join(', ');
      const query = `${keyword} Fuzz${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;
      const variables = fc.record(Object.fromEntries(field.args.map((a: Json) => [a.name, graphqlValue(types, a.type)])) as Record<string, fc.Arbitrary<Json>>, { requiredKeys: [] });
      await fc.assert(
        fc.asyncProperty(variables, async (vars) => {
          const answer = await send('POST', '/graphql', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: vars }) });
          requests++;
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, `${answer.status} graphql ${field.name} ${short(vars)} ${answer.text.slice(0, 200)}\n`);
          const problems = problemsOf(answer, true);
          if (answer.json === undefined) problems.push('no JSON body');
          if (problems.length) failures.push(`${field.name}(${short(vars)}) -> ${answer.status} ${problems.join(', ')}: ${answer.text.slice(0, 300)}`);
          return true;
        }),
        { seed: SEED + seedOffset++, numRuns: RUNS, endOnFailure: true },
      );
    }
  }
  t.true(fields > 30, `${fields} fields fuzzed`);
  t.log(`${fields} fields, ${args} arguments, ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}, statuses ${JSON.stringify(statuses)}`);
  t.deepEqual(failures, []);
  await assertBaselinesIntact(t);
});
