import test from 'ava';
import sharp from 'sharp';
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

test('GraphQL text search', async (t) => {
  const res = await server.call('POST', '/graphql', { key, json: { query: 'mutation { textSearch(input: { filenameStartsWith: "img" }) { status matches } }' } });
  t.is(res.json.data.textSearch.status, 'complete');
  t.deepEqual(paths(res.json.data.textSearch.matches), ['/searcher/2026/summer/img_003.png']);
});
