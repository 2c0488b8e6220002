import test from 'ava';
import http from 'node:http';
import sharp from 'sharp';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { syntheticPhoto } from '@filigrane/vision';
import { startTestServer, type TestServer } from '@filigrane/testing';

let server: TestServer;
let alice: { apiKey: string; id: number };
let bob: { apiKey: string; id: number };
let alicePublicKey: Buffer;

/** A textured test photo of the given size (the seed picks the scene). */
const photo = (width = 320, height = 240, seed = 1) => syntheticPhoto(seed, width, height);

async function lmk(original: Buffer, transactional = false): Promise<Buffer> {
  const result = await embed(original, generateKey(), { transactional });
  return encodeLmk(result.registration, alicePublicKey);
}

const put = (path: string, body: Buffer, type: string, key = alice.apiKey) => server.call('PUT', `/api/v4/media${path}`, { key, body, headers: { 'content-type': type } });

test.before(async () => {
  server = await startTestServer({ plugins: ['media', 'search'], workers: false, env: { FETCH_ALLOW_HOSTS: '' } });
  alice = await server.createAccount('alice', { imageQuota: 6 });
  bob = await server.createAccount('bob');
  const der = await fetch(new URL('/api/v4/account/download/public_key.der', server.url), { headers: { authorization: `Token ${alice.apiKey}` } });
  alicePublicKey = Buffer.from(await der.arrayBuffer());
});
test.after.always(async () => server?.close());

test.serial('register a registration file, then a transactional one of the same original; files are served', async (t) => {
  const original = await photo(320, 240, 7);
  const res = await put('/alice/campaign/2026/été.png', await lmk(original), 'application/lmk');
  t.is(res.status, 201, res.text);
  t.like(res.json, { path: '/alice/campaign/2026/été.png', type: 'image', metadata: {} });
  t.like(res.json.image, { type: 'registered', width: 320, height: 240, format: 'png', media_path: '/alice/campaign/2026/été.png' });
  t.is(res.json.url, `${server.url}/api/v4/media/alice/campaign/2026/%C3%A9t%C3%A9.png`);
  t.false('exclusive' in res.json, 'exclusivity unknown: absent');

  const again = await server.call('GET', new URL(res.json.url).pathname, { key: alice.apiKey });
  t.is(again.status, 200);
  t.is(again.json.path, '/alice/campaign/2026/été.png');

  const thumb = await fetch(res.json.thumbnail, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.is(thumb.status, 200);
  const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
  t.is(meta.format, 'jpeg');
  t.true(Math.max(meta.width ?? 0, meta.height ?? 0) <= 256);
  t.is((await fetch(res.json.image.url, { headers: { authorization: `Token ${alice.apiKey}` } })).status, 200);
  t.is((await fetch(res.json.thumbnail, { headers: { authorization: `Token ${bob.apiKey}` } })).status, 404, 'never another account\'s file');

  const tx = await put('/alice/campaign/2026/été-tx.png', await lmk(original, true), 'application/lmk');
  t.is(tx.status, 201, tx.text);
  t.is(tx.json.image.width, 320);

  const unknown = await put('/alice/campaign/other-tx.png', await lmk(await photo(320, 240, 99), true), 'application/lmk');
  t.is(unknown.status, 422);
  t.is(unknown.json.code, 'original_not_registered');

  // A client's generic binary type (application/octet-stream) is read by its content, as application/lmk.
  const generic = await put('/alice/campaign/2026/generic.png', await lmk(await photo(320, 240, 12)), 'application/octet-stream');
  t.is(generic.status, 201, generic.text);
  t.is(generic.json.image.type, 'registered');
  const text = await put('/alice/campaign/2026/text.png', Buffer.from('hello'), 'application/octet-stream');
  t.is(text.status, 415, text.text);
  t.is(text.json.code, 'unsupported_format', 'not an image, a video or a registration file');
});

test.serial('a CMYK JPEG (made for print) registers as it is and its RGB copies find it', async (t) => {
  const printer = await server.createAccount('printer');
  const rgb = await photo(480, 360, 31);
  const cmyk = await sharp(rgb).toColourspace('cmyk').jpeg({ quality: 92 }).toBuffer();
  t.is((await sharp(cmyk).metadata()).space, 'cmyk');
  const res = await put('/printer/print/cover.jpg', cmyk, 'image/jpeg', printer.apiKey);
  t.is(res.status, 201, res.text);
  t.like(res.json.image, { width: 480, height: 360, format: 'jpeg' });
  const thumb = await fetch(res.json.thumbnail, { headers: { authorization: `Token ${printer.apiKey}` } });
  t.is(thumb.status, 200);
  t.is((await fetch(res.json.image.url, { headers: { authorization: `Token ${printer.apiKey}` } })).status, 200);
  const copy = await sharp(rgb).resize(360).jpeg({ quality: 80 }).toBuffer();
  const found = await server.call('POST', '/api/v4/searches/', { key: printer.apiKey, json: { file: `data:image/jpeg;base64,${copy.toString('base64')}` } });
  t.is(found.status, 200, found.text);
  t.deepEqual(found.json.matches.map((m: { image: { media_path: string } }) => m.image.media_path), ['/printer/print/cover.jpg']);
});

test.serial('a plain image registers for similarity only; JSON data URIs work; metadata nulls are ignored', async (t) => {
  const png = await photo(300, 200, 3);
  const plain = await put('/alice/plain/photo.png', png, 'image/png');
  t.is(plain.status, 201);
  t.is(plain.json.image.format, 'png');
  const served = await fetch(plain.json.image.url, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.deepEqual(Buffer.from(await served.arrayBuffer()), png, 'a plain image is served as uploaded');

  const viaUri = await server.call('PUT', '/api/v4/media/alice/plain/uri.png', {
    key: alice.apiKey,
    json: { url: `data:image/png;base64,${png.toString('base64')}`, metadata: { 'user.campaign': 'spring', 'user.approved': true, 'user.gone': null } },
  });
  t.is(viaUri.status, 201, viaUri.text);
  t.deepEqual(viaUri.json.metadata, { 'user.campaign': 'spring', 'user.approved': true });
});

test.serial('PATCH metadata: set, delete with null, validation', async (t) => {
  const path = '/api/v4/media/alice/plain/uri.png';
  const patched = await server.call('PATCH', path, { key: alice.apiKey, json: { metadata: { 'user.campaign': null, 'user.client': 'ACME' } } });
  t.is(patched.status, 200);
  t.deepEqual(patched.json, {});
  t.deepEqual((await server.call('GET', path, { key: alice.apiKey })).json.metadata, { 'user.approved': true, 'user.client': 'ACME' });
  const bad = await server.call('PATCH', path, { key: alice.apiKey, json: { metadata: { campaign: 'x', 'user.long': 'y'.repeat(256), 'user.n': 3 } } });
  t.is(bad.status, 400);
  t.deepEqual(bad.json.errors.map((e: { code: string }) => e.code).sort(), ['invalid_key', 'invalid_value', 'max_length']);
  t.is((await server.call('PATCH', '/api/v4/media/alice/plain/none.png', { key: alice.apiKey, json: { metadata: {} } })).status, 404);
});

test.serial('PATCH of user.credit sets and clears image.credit', async (t) => {
  const path = '/api/v4/media/alice/plain/uri.png';
  t.is((await server.call('PATCH', path, { key: alice.apiKey, json: { metadata: { 'user.credit': '© Alice Studio' } } })).status, 200);
  t.is((await server.call('GET', path, { key: alice.apiKey })).json.image.credit, '© Alice Studio');
  await server.call('PATCH', path, { key: alice.apiKey, json: { metadata: { 'user.note': 'b' } } });
  t.is((await server.call('GET', path, { key: alice.apiKey })).json.image.credit, '© Alice Studio', 'other keys leave it');
  await server.call('PATCH', path, { key: alice.apiKey, json: { metadata: { 'user.credit': null } } });
  t.is((await server.call('GET', path, { key: alice.apiKey })).json.image.credit, null);
  await server.call('PATCH', path, { key: alice.apiKey, json: { metadata: { 'user.note': null } } });
});

test.serial('folders: children paginated with counters, hidden names, text search', async (t) => {
  const home = await server.call('GET', '/api/v4/media/', { key: alice.apiKey });
  t.is(home.status, 200);
  t.is(home.json.path, '/alice');
  t.is(home.json.type, 'folder');
  t.deepEqual(home.json.children.map((c: { path: string }) => c.path), ['/alice/campaign', '/alice/plain']);
  t.like(home.json, { children_count: 2, subfolders_count: 2, media_count: 0, next: null, previous: null });

  const folder = await server.call('GET', '/api/v4/media/alice/plain/?page_size=1', { key: alice.apiKey });
  t.like(folder.json, { children_count: 2, subfolders_count: 0, media_count: 2 });
  t.is(folder.json.children.length, 1);
  t.truthy(folder.json.next);
  t.false('children' in folder.json.children[0], 'children only for the folder requested');
  const page2 = await server.call('GET', folder.json.next, { key: alice.apiKey });
  t.is(page2.json.children[0].path, '/alice/plain/uri.png');

  const search = await server.call('POST', '/api/v4/searches/', { key: alice.apiKey, json: { metadata: { 'user.client': 'ACME' }, type: 'image' } });
  t.is(search.status, 200);
  t.is(search.json.status, 'complete');
  t.is(search.json.matches.length, 1);
  t.like(search.json.matches[0], { id: null, type: 'text', media: { media_path: '/alice/plain/uri.png' } });
  t.deepEqual(search.json.matches[0].query.type, ['image']);
  const byPrefix = await server.call('POST', '/api/v4/searches/', { key: alice.apiKey, json: { filename__startswith: 'été' } });
  t.deepEqual(byPrefix.json.matches.map((m: { media: { media_path: string } }) => m.media.media_path), ['/alice/campaign/2026/été-tx.png', '/alice/campaign/2026/été.png']);
  const exact = await server.call('POST', '/api/v4/searches/', { key: alice.apiKey, json: { filename: 'ÉTÉ.png' } });
  t.deepEqual(exact.json.matches, [], 'filename is case sensitive');
  const bobSearch = await server.call('POST', '/api/v4/searches/', { key: bob.apiKey, json: { filename: 'photo.png' } });
  t.deepEqual(bobSearch.json.matches, [], 'never another account\'s media');
});

/** A PUT whose path is sent exactly as written (fetch would resolve the dot segments first). */
function rawPut(path: string, body: Buffer): Promise<{ status: number; json: { code: string } }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: 'PUT', path: `/api/v4/media${path}`, headers: { authorization: `Token ${alice.apiKey}`, 'content-type': 'image/png' } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as { code: string } }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('names: traversal, hidden, encoded slash and control characters are refused', async (t) => {
  const png = await photo(64, 64, 5);
  for (const path of ['/alice/../bob/x.png', '/alice/a/../../bob/x.png', '/alice/%2e%2e/bob/x.png', '/alice/.hidden.png', '/alice/a%2Fb.png', '/alice/%00x.png', '/alice/a/./b.png', '/alice/%E0%A4%A.png']) {
    const res = await rawPut(path, png);
    t.is(res.status, 400, path);
    t.true(['invalid_path', 'bad_url'].includes(res.json.code), path);
  }
  t.is((await put('/alice', png, 'image/png')).json.code, 'filename_required');
});

test('another account\'s paths are 403 (or 404 for files), and nothing is changed', async (t) => {
  const png = await photo(64, 64, 6);
  t.is((await put('/alice/intruder.png', png, 'image/png', bob.apiKey)).status, 403);
  t.is((await server.call('GET', '/api/v4/media/alice/', { key: bob.apiKey })).status, 403);
  t.is((await server.call('DELETE', '/api/v4/media/alice/plain/photo.png', { key: bob.apiKey })).status, 403);
  t.is((await server.call('PATCH', '/api/v4/media/alice/plain/photo.png', { key: bob.apiKey, json: { metadata: { 'user.x': 'y' } } })).status, 403);
  t.is((await server.call('GET', '/api/v4/media/nobody/', { key: bob.apiKey })).status, 403);
  t.is((await server.call('GET', '/api/v4/media/', { key: bob.apiKey })).json.path, '/bob');
});

test('bad bodies: wrong type 415, corrupt image 422, bad registration file 400, tampered 422', async (t) => {
  const bob = await server.createAccount('badbodies');
  t.is((await put('/badbodies/a.txt', Buffer.from('hello'), 'text/plain', bob.apiKey)).status, 415);
  const corrupt = await put('/badbodies/corrupt.png', Buffer.concat([(await photo(64, 64, 8)).subarray(0, 60)]), 'image/png', bob.apiKey);
  t.is(corrupt.status, 422, corrupt.text);
  const notImage = await put('/badbodies/x.png', Buffer.from('GIF89a-not-really'), 'image/gif', bob.apiKey);
  t.true([415, 422].includes(notImage.status));
  const file = await lmk(await photo(128, 96, 9));
  const truncated = await put('/badbodies/t.png', file.subarray(0, 40), 'application/lmk', bob.apiKey);
  t.is(truncated.status, 400);
  t.regex(truncated.json.code, /^lmk_/);
  const wrongAccount = await put('/badbodies/w.png', file, 'application/lmk', bob.apiKey);
  t.is(wrongAccount.status, 422, 'a file sealed for alice cannot be opened for bob');
  t.regex(wrongAccount.json.code, /^lmk_/);
  const tampered = Buffer.from(file);
  tampered[tampered.length - 5] ^= 0xff;
  t.is((await put('/alice/tampered.png', tampered, 'application/lmk')).status, 422);
  t.is((await server.call('PUT', '/api/v4/media/badbodies/u.png', { key: bob.apiKey, json: { url: 'http://127.0.0.1:1/x.png' } })).status, 400, 'loopback URLs are refused (SSRF)');
  t.is((await server.call('PUT', '/api/v4/media/badbodies/u.png', { key: bob.apiKey, json: { url: 'file:///etc/passwd' } })).status, 400);
  t.is((await server.call('PUT', '/api/v4/media/badbodies/u.png', { key: bob.apiKey, json: {} })).status, 400);
  const list = await server.call('GET', '/api/v4/media/badbodies/', { key: bob.apiKey });
  t.is(list.json.children_count, 0, 'no refused registration left anything behind');
});

test.serial('two concurrent PUTs on one path leave exactly one media', async (t) => {
  const png = await photo(96, 96, 10);
  const results = await Promise.all([1, 2, 3].map(() => put('/bob/race/same.png', png, 'image/png', bob.apiKey)));
  t.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409]);
  t.is(results.find((r) => r.status === 409)!.json.code, 'already_exists');
  const folder = await server.call('GET', '/api/v4/media/bob/race/', { key: bob.apiKey });
  t.is(folder.json.media_count, 1);
  const account = await server.call('GET', '/api/v4/account/', { key: bob.apiKey });
  t.is(account.json.image_count, 1);
  t.like(account.json.quotas, { uploaded_images: 1, active_paths_in_home: 1, paths_in_home: 2, user_paths: 1 });
  t.is((await put('/bob/race', png, 'image/png', bob.apiKey)).json.code, 'is_a_folder');
  t.is((await put('/bob/race/same.png/inside.png', png, 'image/png', bob.apiKey)).json.code, 'parent_not_folder');
});

test.serial('quota exhaustion refuses registration and raises the incident; deletion clears it', async (t) => {
  const before = (await server.call('GET', '/api/v4/account/', { key: alice.apiKey })).json;
  t.is(before.image_quota, 6);
  const png = await photo(64, 64, 11);
  let status = 201;
  let n = 0;
  while (status === 201 && n < 10) status = (await put(`/alice/quota/p${n++}.png`, png, 'image/png')).status;
  t.is(status, 403);
  const after = (await server.call('GET', '/api/v4/account/', { key: alice.apiKey })).json;
  t.is(after.image_count, 6);
  t.is(after.incidents, 'quota exceeded');
  t.is((await put('/alice/quota/more.png', png, 'image/png')).json.code, 'quota_exceeded');

  t.is((await server.call('DELETE', '/api/v4/media/alice/quota/', { key: alice.apiKey })).json.code, 'folder_not_empty');
  t.is((await server.call('DELETE', '/api/v4/media/alice/quota/?recursive=true', { key: alice.apiKey })).status, 204);
  const cleared = (await server.call('GET', '/api/v4/account/', { key: alice.apiKey })).json;
  t.is(cleared.incidents, null);
  t.true(cleared.image_count < 6);
  t.is((await server.call('GET', '/api/v4/media/alice/quota/p0.png', { key: alice.apiKey })).status, 404);
});

test.serial('deleted media are gone: GET, files, text search', async (t) => {
  const res = await put('/bob/gone/x.png', await photo(80, 80, 12), 'image/png', bob.apiKey);
  await server.call('PATCH', '/api/v4/media/bob/gone/x.png', { key: bob.apiKey, json: { metadata: { 'user.tag': 'gone' } } });
  t.is((await server.call('DELETE', '/api/v4/media/bob/gone/x.png', { key: bob.apiKey })).status, 204);
  t.is((await server.call('GET', '/api/v4/media/bob/gone/x.png', { key: bob.apiKey })).status, 404);
  t.is((await fetch(res.json.thumbnail, { headers: { authorization: `Token ${bob.apiKey}` } })).status, 404);
  const search = await server.call('POST', '/api/v4/searches/', { key: bob.apiKey, json: { metadata: { 'user.tag': 'gone' } } });
  t.deepEqual(search.json.matches, []);
  t.is((await server.call('DELETE', '/api/v4/media/bob/gone/x.png', { key: bob.apiKey })).status, 404);
  t.is((await server.call('DELETE', '/api/v4/media/bob/', { key: bob.apiKey })).json.code, 'cannot_delete_home');
});

test('GraphQL: browse, detail, metadata update', async (t) => {
  const q = await server.call('POST', '/graphql', {
    key: bob.apiKey,
    json: { query: '{ mediaFolder(path: "/bob/race") { folder { path } mediaCount children { name watermarked image { width format } } } }' },
  });
  t.is(q.json.data.mediaFolder.folder.path, '/bob/race');
  t.deepEqual(q.json.data.mediaFolder.children, [{ name: 'same.png', watermarked: false, image: { width: 96, format: 'png' } }]);
  const m = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: 'mutation { updateMediaMetadata(path: "/bob/race/same.png", metadata: { _: 1 }) }' } });
  t.is(m.json.errors[0].extensions.status_code, 400);
  const ok = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: 'mutation { updateMediaMetadata(path: "/bob/race/same.png", metadata: { user_x: 1 }) }' } });
  t.is(ok.json.errors[0].extensions.apiCode, 'invalid');
  const set = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: 'mutation($m: JSONObject!) { updateMediaMetadata(path: "/bob/race/same.png", metadata: $m) }', variables: { m: { 'user.x': 'y' } } } });
  t.true(set.json.data.updateMediaMetadata);
  const detail = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: '{ media(path: "/bob/race/same.png") { metadata } }' } });
  t.deepEqual(detail.json.data.media.metadata, { 'user.x': 'y' });
  const png = await photo(72, 60, 13);
  const reg = await server.call('POST', '/graphql', {
    key: bob.apiKey,
    json: {
      query: 'mutation($u: String!, $m: JSONObject) { registerMedia(path: "/bob/gql/é.png", url: $u, metadata: $m) { path watermarked image { width } metadata } }',
      variables: { u: `data:image/png;base64,${png.toString('base64')}`, m: { 'user.k': 'v' } },
    },
  });
  t.deepEqual(reg.json.data.registerMedia, { path: '/bob/gql/é.png', watermarked: false, image: { width: 72 }, metadata: { 'user.k': 'v' } });
  const denied = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: '{ media(path: "/alice/plain/photo.png") { path } }' } });
  t.is(denied.json.errors[0].extensions.status_code, 403);
  // An unpaired surrogate (valid JSON, not valid Unicode) in a path: 400, not a 500 from encodeURIComponent
  // (refused on arrival with every other argument, as REST bodies are: invalid_character).
  for (const query of ['query($p: String!) { media(path: $p) { path } }', 'query($p: String) { mediaFolder(path: $p) { mediaCount } }', 'mutation($p: String!) { registerMedia(path: $p, url: "data:,x") { path } }']) {
    const lone = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query, variables: { p: '/bob/a\ud800b.png' } } });
    t.like(lone.json.errors?.[0]?.extensions, { code: 'BAD_USER_INPUT', apiCode: 'invalid_character', status_code: 400 }, lone.text);
  }
});
