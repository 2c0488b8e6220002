import test from 'ava';
import sharp from 'sharp';
import { camelCaseKeys } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';

let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer({ plugins: ['search'], workers: true });
  key = (await server.createAccount('searcher')).apiKey;
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } }).png().toBuffer();
  for (const [path, meta] of [
    ['/searcher/2026/spring/IMG_001.png', { 'user.campaign': 'spring', 'user.approved': true }],
    ['/searcher/2026/spring/IMG_002.png', { 'user.campaign': 'spring' }],
    ['/searcher/2026/summer/img_003.png', { 'user.campaign': 'summer' }],
  ] as const) {
    const res = await server.call('PUT', `/api/v4/media${path}`, { key, json: { url: `data:image/png;base64,${png.toString('base64')}`, metadata: meta } });
    if (res.status !== 201) throw new Error(res.text);
  }
});
test.after.always(async () => server?.close());

const search = (json: unknown) => server.call('POST', '/api/v4/searches/', { key, json });
const paths = (matches: { media: { media_path: string } }[]) => matches.map((m) => m.media.media_path);

test('synchronous text search: metadata, type, filename, prefix, combined', async (t) => {
  t.deepEqual(paths((await search({ metadata: { 'user.campaign': 'spring' } })).json.matches), ['/searcher/2026/spring/IMG_001.png', '/searcher/2026/spring/IMG_002.png']);
  t.deepEqual(paths((await search({ metadata: { 'user.campaign': 'spring', 'user.approved': true } })).json.matches), ['/searcher/2026/spring/IMG_001.png']);
  t.deepEqual(paths((await search({ filename: 'img_003.png' })).json.matches), ['/searcher/2026/summer/img_003.png']);
  t.deepEqual(paths((await search({ filename__startswith: 'IMG' })).json.matches), ['/searcher/2026/spring/IMG_001.png', '/searcher/2026/spring/IMG_002.png']);
  t.deepEqual(paths((await search({ type: 'folder', filename__startswith: 'spr' })).json.matches), ['/searcher/2026/spring']);
  const res = await search({ filename: 'IMG_002.png', type: 'image', metadata: { 'user.campaign': 'spring' } });
  t.is(res.status, 200);
  t.like(res.json.matches[0], { id: null, type: 'text', query: { filename: 'IMG_002.png', type: ['image'], sync: true, metadata: { 'user.campaign': 'spring' } } });
  t.regex(res.json.matches[0].created, /^\d{4}-/);
  t.is(res.json.matches[0].media.media_url, `${server.url}/api/v4/media/searcher/2026/spring/IMG_002.png`);
});

test('invalid text searches are 400 with the field named', async (t) => {
  for (const [body, field] of [
    [{ filename__startswith: 'IM' }, 'filename__startswith'],
    [{ type: 'pdf' }, 'type'],
    [{ metadata: { campaign: 'x' } }, 'metadata.campaign'],
    [{ sync: 'yes', filename: 'x' }, 'sync'],
    [{ colour: 'red' }, 'colour'],
  ] as const) {
    const res = await search(body);
    t.is(res.status, 400, JSON.stringify(body));
    t.true(res.json.errors.some((e: { field?: string }) => e.field === field), JSON.stringify(res.json));
  }
  t.is((await search({})).json.errors[0].code, 'empty_query');
});

test('asynchronous search: 201 at once, then polled until complete', async (t) => {
  const res = await search({ metadata: { 'user.campaign': 'summer' }, sync: false });
  t.is(res.status, 201);
  t.like(res.json, { status: 'pending', type: 'text' });
  t.is(res.json.url, `${server.url}/api/v4/searches/${res.json.id}/`);
  let state = res.json;
  for (let i = 0; i < 100 && (state.status === 'pending' || state.status === 'running'); i++) {
    await new Promise((r) => setTimeout(r, 200));
    state = (await server.call('GET', new URL(res.json.url).pathname, { key })).json;
  }
  t.is(state.status, 'complete');
  t.deepEqual(paths(state.matches), ['/searcher/2026/summer/img_003.png']);
  t.truthy(state.finished);
  const list = await server.call('GET', '/api/v4/searches/', { key });
  t.is(list.json.count, 1);
  const other = await server.createAccount('nosy');
  t.is((await server.call('GET', new URL(res.json.url).pathname, { key: other.apiKey })).status, 404);
  t.is((await server.call('GET', '/api/v4/searches/not-a-uuid/', { key })).status, 404);
});

const gql = (query: string, variables?: Record<string, unknown>, as = key) => server.call('POST', '/graphql', { key: as, json: { query, variables } });
const MATCH_FIELDS = 'id created type watermarked query { filename type sync metadata } media { metadata mediaPath mediaUrl }';
const SEARCH_FIELDS = `id url name type status created finished query { name searchPath mode filename type sync metadata } matches { ${MATCH_FIELDS} } error { statusCode code details }`;
/** A REST match as GraphQL types it: camelCase keys, user metadata as set. */
const camel = (o: unknown) => camelCaseKeys(o);

test('GraphQL text search: typed matches with every field of the REST match', async (t) => {
  const res = await gql(`mutation($i: TextSearchInput!) { textSearch(input: $i) { status matches { ${MATCH_FIELDS} } } }`, { i: { filenameStartsWith: 'img', metadata: { 'user.campaign': 'summer' } } });
  t.falsy(res.json.errors, res.text);
  t.is(res.json.data.textSearch.status, 'complete');
  const rest = await search({ filename__startswith: 'img', metadata: { 'user.campaign': 'summer' } });
  t.deepEqual(res.json.data.textSearch.matches.map((m: { media: { mediaPath: string } }) => m.media.mediaPath), ['/searcher/2026/summer/img_003.png']);
  // Every key of the REST match is a field, with the same value (watermarked: text matches have none).
  t.deepEqual(res.json.data.textSearch.matches, camel(rest.json.matches.map((m: object) => ({ ...m, watermarked: null }))));
});

test('GraphQL searches: the list as REST lists it, one search by id, NOT_FOUND and BAD_USER_INPUT as REST', async (t) => {
  const account = await server.createAccount('lister');
  const stored: string[] = [];
  for (const campaign of ['spring', 'summer', 'autumn']) {
    const res = await server.call('POST', '/api/v4/searches/', { key: account.apiKey, json: { metadata: { 'user.campaign': campaign }, sync: false } });
    t.is(res.status, 201);
    stored.push(res.json.id);
  }
  await server.drainJobs();
  const rest = (await server.call('GET', '/api/v4/searches/', { key: account.apiKey })).json;
  const first = await gql(`{ searches(first: 2) { nodes { ${SEARCH_FIELDS} } pageInfo { hasNextPage endCursor } } }`, {}, account.apiKey);
  t.falsy(first.json.errors, first.text);
  const next = await gql(`query($a: String) { searches(first: 2, after: $a) { nodes { ${SEARCH_FIELDS} } pageInfo { hasNextPage } } }`, { a: first.json.data.searches.pageInfo.endCursor }, account.apiKey);
  t.true(first.json.data.searches.pageInfo.hasNextPage);
  t.false(next.json.data.searches.pageInfo.hasNextPage);
  const nodes = [...first.json.data.searches.nodes, ...next.json.data.searches.nodes];
  t.deepEqual(nodes.map((n: { id: string }) => n.id), rest.results.map((r: { id: string }) => r.id));
  t.deepEqual(nodes.map((n: { id: string }) => n.id).sort(), [...stored].sort());
  const { id } = nodes[0];
  const restOne = rest.results[0];
  t.like(nodes[0], { id: restOne.id, url: restOne.url, type: 'text', status: 'complete', created: restOne.created, finished: restOne.finished, error: null });
  t.deepEqual(nodes[0].matches, camel(restOne.matches.map((m: object) => ({ ...m, watermarked: null }))));
  t.like(nodes[0].query, { filename: null, type: [], sync: false, metadata: restOne.query.metadata });
  const one = await gql(`{ search(id: "${id}") { ${SEARCH_FIELDS} } }`, {}, account.apiKey);
  t.deepEqual(one.json.data.search, nodes[0]);

  const missing = await gql(`{ search(id: "${id}") { id } }`);
  t.is(missing.json.data.search, null, 'another account\'s search is not found');
  t.is(missing.json.errors[0].extensions.code, 'NOT_FOUND');
  t.deepEqual((await gql('{ searches { nodes { id } } }', {}, (await server.createAccount('nobody')).apiKey)).json.data.searches.nodes, []);
  for (const bad of ['first: 0', 'after: "forged"']) {
    const res = await gql(`{ searches(${bad}) { nodes { id } } }`, {}, account.apiKey);
    t.is(res.json.errors[0].extensions.code, 'BAD_USER_INPUT', bad);
  }
});
