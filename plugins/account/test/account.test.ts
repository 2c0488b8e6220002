import test from 'ava';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@filigrane/testing';

const toolDir = mkdtempSync(join(tmpdir(), 'filigrane-tool-'));
writeFileSync(join(toolDir, 'filigrane-mark-linux-x64'), Buffer.from('#!binary\n'));
writeFileSync(join(toolDir, '.hidden'), 'secret');
let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer({ plugins: ['account'], workers: false, config: { toolDir, toolVersion: '1.2.3' } });
  key = (await server.createAccount('acme', { imageQuota: 1000, diskQuota: 5_000_000 })).apiKey;
});
test.after.always(async () => server?.close());

test('GET account has every field of the spec, on v3 and v4', async (t) => {
  for (const v of ['v3', 'v4']) {
    const res = await server.call('GET', `/api/${v}/account/`, { key });
    t.is(res.status, 200);
    t.like(res.json, { username: 'acme', full_name: 'acme', email: 'acme@example.com', incidents: null, image_count: 0, image_quota: 1000, disk_usage: 0, disk_quota: 5_000_000, home: '/acme', permissions: [] });
    t.false('expires' in res.json, 'expires only comes with expiring incidents');
    t.deepEqual(Object.keys(res.json.quotas).sort(), [
      'active_paths_in_home', 'active_paths_in_home_limit', 'paths_in_home', 'paths_in_home_limit', 'uploaded_images',
      'uploaded_images_limit', 'uploaded_marks', 'uploaded_marks_limit', 'user_paths', 'user_paths_limit',
    ]);
  }
});

test.serial('settings: defaults, partial update, per-field errors that change nothing', async (t) => {
  const initial = await server.call('GET', '/api/v4/account/settings/', { key });
  t.is(initial.json.lang, 'en');
  t.is(Object.keys(initial.json.notifications).length, 13);
  t.deepEqual(initial.json.notif_site_countries, []);

  const updated = await server.call('POST', '/api/v4/account/settings/', { key, json: { lang: 'fr', notifications: { notify_web: true }, notif_site_countries: ['fr', 'DE'] } });
  t.is(updated.status, 200);
  t.is(updated.json.lang, 'fr');
  t.true(updated.json.notifications.notify_web);
  t.false(updated.json.notifications.notify_pdf);
  t.deepEqual(updated.json.notif_site_countries, ['FR', 'DE']);

  const partial = await server.call('POST', '/api/v3/account/settings/', { key, json: { notifications: { notify_pdf: true } } });
  t.true(partial.json.notifications.notify_web, 'flags not sent keep their value');
  t.true(partial.json.notifications.notify_pdf);
  t.is(partial.json.lang, 'fr');

  const bad = await server.call('POST', '/api/v4/account/settings/', { key, json: { lang: 'de', notifications: { notify_web: 'yes', nope: true }, notif_site_countries: ['XX', 'FR'], color: 'red' } });
  t.is(bad.status, 400);
  t.deepEqual(bad.json.errors.map((e: { field: string }) => e.field).sort(), ['color', 'lang', 'notif_site_countries.0', 'notifications.nope', 'notifications.notify_web']);
  t.truthy(bad.json.details.lang);
  const after = await server.call('GET', '/api/v4/account/settings/', { key });
  t.deepEqual(after.json, partial.json, 'a refused update changes nothing');
  t.is((await server.call('POST', '/api/v4/account/settings/', { key, json: [1] })).status, 400);
});

test('download lists the public key (served as DER) and only the binaries that exist', async (t) => {
  const info = await server.call('GET', '/api/v4/account/download/', { key });
  t.is(info.status, 200);
  t.is(info.json.version, '1.2.3');
  t.deepEqual(info.json.key, { 'public_key.der': '/api/v4/account/download/public_key.der' });
  t.deepEqual(info.json.software, { 'filigrane-mark-linux-x64': '/api/v4/account/download/software/filigrane-mark-linux-x64' });

  const der = await fetch(new URL(info.json.key['public_key.der'], server.url), { headers: { authorization: `Token ${key}` } });
  t.is(der.status, 200);
  const pub = createPublicKey({ key: Buffer.from(await der.arrayBuffer()), format: 'der', type: 'spki' });
  t.is(pub.asymmetricKeyType, 'rsa');
  t.is(pub.asymmetricKeyDetails?.modulusLength, 3072);

  const bin = await server.call('GET', info.json.software['filigrane-mark-linux-x64'], { key });
  t.is(bin.text, '#!binary\n');
  // Streamed from disk, still with its length and type.
  t.is(bin.headers.get('content-length'), '9');
  t.is(bin.headers.get('content-type'), 'application/octet-stream');
  t.is((await server.call('GET', '/api/v4/account/download/software/.hidden', { key })).status, 404);
  t.is((await server.call('GET', '/api/v4/account/download/software/..%2F..%2Fpackage.json', { key })).status, 404);
  t.is((await server.call('GET', '/api/v3/account/download/', { key })).json.key['public_key.der'], '/api/v3/account/download/public_key.der');
});

// How auth stores the key (sealed and hashed, never in clear) is auth's test (oauth.test.ts).
test('the API key can be read back from the settings', async (t) => {
  const res = await server.call('GET', '/api/v4/account/settings/api_key/', { key });
  t.is(res.json.api_key, key);
});

test('GraphQL answers the account query with the same data as REST', async (t) => {
  const rest = (await server.call('GET', '/api/v4/account/', { key })).json;
  const gql = await server.call('POST', '/graphql', { key, json: { query: '{ account { username email home imageQuota diskQuota quotas { userPaths userPathsLimit } } }' } });
  t.is(gql.status, 200);
  t.deepEqual(gql.json.data.account, {
    username: rest.username, email: rest.email, home: rest.home, imageQuota: rest.image_quota, diskQuota: rest.disk_quota,
    quotas: { userPaths: rest.quotas.user_paths, userPathsLimit: rest.quotas.user_paths_limit },
  });
  const upd = await server.call('POST', '/graphql', { key, json: { query: 'mutation { updateAccountSettings(input: { notifSiteCountries: ["zz"] }) { lang } }' } });
  t.is(upd.json.errors[0].extensions.apiCode, 'invalid');
  t.is(upd.json.errors[0].extensions.status_code, 400);
});

test('expires is the date (no time) at which the account will be deleted, and documented as a date', async (t) => {
  const { apiKey, id } = await server.createAccount('overdue');
  await server.app.dataSource.query(`UPDATE account_profiles SET incidents = 'payment overdue', expires = '2027-01-15' WHERE account_id = $1`, [id]);
  const res = await server.call('GET', '/api/v3/account/', { key: apiKey });
  t.like(res.json, { incidents: 'payment overdue', expires: '2027-01-15' });
  const doc = (await server.call('GET', '/api/schema/', { key: apiKey })).json;
  const account = doc.paths['/api/v3/account/'].get.responses['200'].content['application/json'].schema;
  const schema = account.$ref ? doc.components.schemas[account.$ref.split('/').pop()] : account;
  t.deepEqual(schema.properties.expires, { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] });
  t.deepEqual(schema.properties.incidents.anyOf[0].enum, ['free trial expired', 'payment overdue', 'quota exceeded']);
});
