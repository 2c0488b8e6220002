import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';

// Issue 23 item 7 and 8, through real HTTP on loopback: CORS for CORS_ORIGINS only, GET queries,
// signed file URLs (an <img> needs no Authorization header), Media.thumbnail, GraphiQL served
// offline from npm, trusted documents.

const CONSOLE = 'https://console.example.com';
let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;
let thumbnail: string;

test.before(async () => {
  server = await startTestServer({ plugins: ['media', 'matches'], clock: true, env: { CORS_ORIGINS: `${CONSOLE},http://localhost:5173` }, config: { rateLimit: { perSecond: 100_000, perDay: 1_000_000 } } });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#aa2200' } }).png().toBuffer();
  const res = await alice.call('PUT', '/api/v4/media/alice/red.png', { json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (res.status !== 201) throw new Error(res.text);
  thumbnail = res.json.thumbnail;
});
test.after.always(async () => server?.close());

const gql = (account: TestAccount, query: string, variables?: unknown) => account.call('POST', '/graphql', { json: { query, variables } });
const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: 'manual' });

test('CORS: listed origins get preflights and credentials, on REST and GraphQL; others get no CORS header', async (t) => {
  for (const path of ['/graphql', '/api/v4/matches/']) {
    const preflight = await fetch(`${server.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: CONSOLE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    t.is(preflight.status, 204, path);
    t.is(preflight.headers.get('access-control-allow-origin'), CONSOLE);
    t.is(preflight.headers.get('access-control-allow-credentials'), 'true');
    t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/i);
    t.regex(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);

    const stranger = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    t.is(stranger.headers.get('access-control-allow-origin'), null, 'an unlisted origin gets no CORS header');
    t.is(stranger.headers.get('access-control-allow-credentials'), null);
  }
  const listed = await alice.call('GET', '/api/v4/matches/', { headers: { origin: CONSOLE } });
  t.is(listed.status, 200);
  t.is(listed.headers.get('access-control-allow-origin'), CONSOLE);
  t.regex(listed.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/i);
  // An error answer carries the headers too, or the page could not read it.
  const refused = await fetch(`${server.url}/api/v4/matches/`, { headers: { origin: CONSOLE, authorization: 'Token wrong' } });
  t.is(refused.status, 401);
  t.is(refused.headers.get('access-control-allow-origin'), CONSOLE);
  const other = await alice.call('GET', '/api/v4/matches/', { headers: { origin: 'https://evil.example' } });
  t.is(other.headers.get('access-control-allow-origin'), null);
  t.is(other.headers.get('access-control-allow-credentials'), null);
});

test('GET /graphql runs queries (GraphQL over HTTP), never mutations', async (t) => {
  const q = encodeURIComponent('query Me($x: Boolean!) { account @include(if: $x) { username } }');
  const res = await alice.call('GET', `/graphql?query=${q}&variables=${encodeURIComponent('{"x":true}')}`);
  t.is(res.status, 200, res.text);
  t.is(res.json.data.account.username, 'alice');
  const mutation = await alice.call('GET', `/graphql?query=${encodeURIComponent('mutation { updateAccountSettings(input: { lang: "fr" }) { lang } }')}`);
  t.is(mutation.status, 405, mutation.text);
  t.is((await gql(alice, '{ accountSettings { lang } }')).json.data.accountSettings.lang, 'en', 'the GET mutation did not run');
  const form = await server.call('POST', '/graphql', { key: alice.apiKey, body: 'query={account{username}}', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.is(form.status, 415, 'a cross-site form cannot post a query');
});

test('signed file URLs open a file without credentials, for its account, path and lifetime only', async (t) => {
  t.is((await get(thumbnail)).status, 401, 'the plain URL still needs credentials');
  const res = await gql(alice, 'query @signedUrls { media(path: "/alice/red.png") { thumbnail image { url thumbnail } } }');
  t.falsy(res.json.errors, JSON.stringify(res.json.errors));
  const signed: string = res.json.data.media.thumbnail;
  t.true(signed.startsWith(`${thumbnail}?expires=`), signed);
  const img = await get(signed);
  t.is(img.status, 200);
  t.is(img.headers.get('content-type'), 'image/jpeg');
  t.is((await sharp(Buffer.from(await img.arrayBuffer())).metadata()).format, 'jpeg');
  t.is((await get(res.json.data.media.image.url)).status, 200, 'the image too');

  const plain = await gql(alice, '{ media(path: "/alice/red.png") { thumbnail } }');
  t.is(plain.json.data.media.thumbnail, thumbnail, 'without @signedUrls the URL is the REST one');

  const tampered = signed.replace(/account=\d+/, `account=${bob.id}`);
  t.is((await get(tampered)).status, 401);
  const otherFile = signed.replace('/thumbnail?', '/registration?');
  t.is((await get(otherFile)).status, 401, 'bound to the path');
  const notAFile = `${server.url}/api/v4/account/?${new URL(signed).search.slice(1)}`;
  t.is((await get(notAFile)).status, 401, 'a signature opens file routes only');

  const rest = await alice.call('POST', '/api/v4/signed-urls/', { json: { urls: [thumbnail] } });
  t.is(rest.status, 200, rest.text);
  t.is(rest.json.results[0].url, thumbnail);
  t.is((await get(rest.json.results[0].signed_url)).status, 200);
  const foreign = await alice.call('POST', '/api/v4/signed-urls/', { json: { urls: ['https://elsewhere.example/x.jpg', `${server.url}/api/v4/account/`] } });
  t.is(foreign.status, 400);
  t.deepEqual(Object.keys(foreign.json.details), ['urls.0', 'urls.1']);

  // Bob's signature of Alice's file opens nothing: the route still checks the account.
  const bobs = await bob.call('POST', '/api/v4/signed-urls/', { json: { urls: [thumbnail] } });
  t.is((await get(bobs.json.results[0].signed_url)).status, 404);

  server.clock.advance(901_000);
  const expired = await get(signed);
  t.is(expired.status, 401);
  t.is(((await expired.json()) as { code: string }).code, 'invalid_signature');
});

test('the explorer is GraphiQL from npm, every asset served locally', async (t) => {
  const page = await get(`${server.url}/graphql`, { accept: 'text/html' });
  t.is(page.status, 200);
  const html = await page.text();
  t.notRegex(html, /https?:\/\//, 'no CDN');
  const scripts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  t.true(scripts.some((s) => s.endsWith('graphiql.min.js')));
  for (const asset of scripts) {
    const res = await get(`${server.url}${asset}`);
    t.is(res.status, 200, asset);
    t.true((await res.arrayBuffer()).byteLength > 100, asset);
  }
  const bundle = await (await get(`${server.url}/graphql-explorer/graphiql.min.js`)).text();
  t.regex(bundle, /DocExplorer/, 'the schema docs');
  t.is((await get(`${server.url}/graphql-explorer/..%2Fpackage.json`)).status, 404);
});

test('trusted documents: only the allow-list runs, by id or by its exact text', async (t) => {
  const me = 'query Me { account { username } }';
  const hash = createHash('sha256').update(me).digest('hex');
  const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
  const file = join(dir, 'persisted-documents.json');
  writeFileSync(file, JSON.stringify({ [hash]: me }));
  const locked = await startTestServer({ plugins: ['media'], env: { GRAPHQL_TRUSTED_DOCUMENTS: file } });
  t.teardown(() => locked.close());
  const carol = await locked.createAccount('carol');
  const byId = await carol.call('POST', '/graphql', { json: { documentId: `sha256:${hash}` } });
  t.is(byId.status, 200, byId.text);
  t.is(byId.json.data.account.username, 'carol');
  const byGet = await carol.call('GET', `/graphql?documentId=sha256:${hash}`);
  t.is(byGet.json.data.account.username, 'carol');
  t.is((await carol.call('POST', '/graphql', { json: { query: me } })).json.data.account.username, 'carol');
  const other = await carol.call('POST', '/graphql', { json: { query: '{ account { email } }' } });
  t.is(other.status, 400);
  t.regex(JSON.stringify(other.json), /untrusted_document/);
  const unknown = await carol.call('POST', '/graphql', { json: { documentId: 'sha256:00' } });
  t.regex(JSON.stringify(unknown.json), /persisted_query_not_found/);
});

test('signing a file URL with a fragment or an old signature gives a working signed URL, never a 500 (REST, GraphQL, @signedUrls)', async (t) => {
  const rest = await alice.call('POST', '/api/v4/signed-urls/', { json: { urls: [`${thumbnail}#top`] } });
  t.is(rest.status, 200, rest.text);
  const withFragment: string = rest.json.results[0].signed_url;
  t.true(withFragment.endsWith('#top'), withFragment);
  t.is((await get(withFragment)).status, 200, 'fetch leaves the fragment out, the signature before it holds');
  // Signing a signed URL again signs it afresh (one expiry, one account, one signature).
  const again = await alice.call('POST', '/api/v4/signed-urls/', { json: { urls: [withFragment.replace('#top', '')] } });
  t.is(again.status, 200, again.text);
  const resigned: string = again.json.results[0].signed_url;
  t.is(resigned.match(/[?&](expires|account|signature)=/g)?.length, 3, resigned);
  t.is((await get(resigned)).status, 200);
  const query = await gql(alice, '{ signedFileUrls(urls: ["' + thumbnail + '#x"]) { signedUrl } }');
  t.falsy(query.json.errors, JSON.stringify(query.json.errors));
  // Text the user stored that happens to hold such a URL is signed too, without failing the answer.
  const meta = await alice.call('PATCH', '/api/v4/media/alice/red.png', { json: { metadata: { 'user.link': `${thumbnail}#frag` } } });
  t.is(meta.status, 200, meta.text);
  const directive = await gql(alice, 'query @signedUrls { media(path: "/alice/red.png") { metadata thumbnail } }');
  t.falsy(directive.json.errors, JSON.stringify(directive.json.errors));
  t.true(String(directive.json.data.media.metadata['user.link']).endsWith('#frag'));
});
