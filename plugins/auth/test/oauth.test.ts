import test from 'ava';
import { ManualClock } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';

const clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer({ plugins: ['auth'], workers: false, clock });
  key = (await server.createAccount('oauthuser')).apiKey;
});
test.after.always(async () => server?.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const form = (body: string, authorization?: string) => ({
  body,
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
});

test.serial('API keys and client secrets are not stored in clear (auth reads its own tables)', async (t) => {
  const created = await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: 'At rest' } });
  t.is(created.status, 201);
  const rows: { sealed_key: string; key_hash: string }[] = await server.app.dataSource.query('SELECT sealed_key, key_hash FROM api_keys');
  t.true(rows.length > 0);
  for (const r of rows) {
    t.false(r.sealed_key.includes(key));
    t.not(r.key_hash, key);
  }
  const secrets: { client_secret_hash: string }[] = await server.app.dataSource.query('SELECT client_secret_hash FROM oauth_applications');
  t.true(secrets.length > 0 && secrets.every((s) => s.client_secret_hash.startsWith('scrypt$') && !s.client_secret_hash.includes(created.json.client_secret)));
  t.is((await server.call('DELETE', `/api/v3/account/oauth/applications/${created.json.id}/`, { key })).status, 204);
});

test.serial('client credentials end to end: create, token, bearer call, expiry, delete revokes', async (t) => {
  const created = await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: 'CMS sync' } });
  t.is(created.status, 201);
  t.deepEqual(Object.keys(created.json).sort(), ['client_id', 'client_secret', 'created', 'id', 'name']);
  const { id, client_id, client_secret } = created.json;

  const detail = await server.call('GET', `/api/v3/account/oauth/applications/${id}/`, { key });
  t.is(detail.status, 200);
  t.deepEqual(Object.keys(detail.json).sort(), ['client_id', 'created', 'id', 'name'], 'the secret is never shown again');
  t.regex(detail.json.created, /^\d{4}-\d{2}-\d{2}T/);

  const token = await server.call('POST', '/o/token/', form('grant_type=client_credentials', basic(client_id, client_secret)));
  t.is(token.status, 200);
  t.is(token.json.token_type, 'Bearer');
  t.is(token.json.expires_in, 3600);
  t.is(token.json.scope, 'openid');
  t.is(token.headers.get('cache-control'), 'no-store');

  const me = await server.call('GET', '/api/v4/account/', { bearer: token.json.access_token });
  t.is(me.status, 200);
  t.is(me.json.username, 'oauthuser');

  clock.advance(3599_000);
  t.is((await server.call('GET', '/api/v4/account/', { bearer: token.json.access_token })).status, 200);
  clock.advance(2_000);
  const expired = await server.call('GET', '/api/v4/account/', { bearer: token.json.access_token });
  t.is(expired.status, 401);
  t.is(expired.json.code, 'token_expired');

  const fresh = await server.call('POST', '/o/token/', form('grant_type=client_credentials', basic(client_id, client_secret)));
  t.is((await server.call('GET', '/api/v4/account/', { bearer: fresh.json.access_token })).status, 200);
  t.is((await server.call('DELETE', `/api/v3/account/oauth/applications/${id}/`, { key })).status, 204);
  const revoked = await server.call('GET', '/api/v4/account/', { bearer: fresh.json.access_token });
  t.is(revoked.status, 401);
  t.is(revoked.json.status_code, 401);
  t.is((await server.call('GET', `/api/v3/account/oauth/applications/${id}/`, { key })).status, 404);
  t.is((await server.call('POST', '/o/token/', form('grant_type=client_credentials', basic(client_id, client_secret)))).status, 401);
});

test('token endpoint errors follow RFC 6749 inside the error body', async (t) => {
  const app = (await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: 'errs' } })).json;
  const wrongSecret = await server.call('POST', '/o/token/', form('grant_type=client_credentials', basic(app.client_id, 'nope')));
  t.is(wrongSecret.status, 401);
  t.like(wrongSecret.json, { status_code: 401, code: 'invalid_client', error: 'invalid_client' });
  t.truthy(wrongSecret.headers.get('www-authenticate'));

  const grant = await server.call('POST', '/o/token/', form('grant_type=password', basic(app.client_id, app.client_secret)));
  t.like(grant.json, { status_code: 400, code: 'unsupported_grant_type', error: 'unsupported_grant_type' });

  const missing = await server.call('POST', '/o/token/', form('', basic(app.client_id, app.client_secret)));
  t.is(missing.status, 411);
  const noGrant = await server.call('POST', '/o/token/', form('foo=bar', basic(app.client_id, app.client_secret)));
  t.like(noGrant.json, { status_code: 400, code: 'invalid_request' });
  const noClient = await server.call('POST', '/o/token/', form('grant_type=client_credentials'));
  t.like(noClient.json, { status_code: 401, code: 'invalid_client' });
  const inBody = await server.call('POST', '/o/token/', form(`grant_type=client_credentials&client_id=${app.client_id}&client_secret=${app.client_secret}`));
  t.is(inBody.status, 200, 'client credentials in the form body (RFC 6749 2.3.1) also work');
});

test('application list is paginated without count; bad input is a 400 with per-field errors', async (t) => {
  for (const name of ['a1', 'a2', 'a3']) await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name } });
  const page = await server.call('GET', '/api/v3/account/oauth/applications/?page_size=2', { key });
  t.is(page.status, 200);
  t.false('count' in page.json);
  t.is(page.json.results.length, 2);
  t.is(page.json.previous, null);
  t.regex(page.json.next, /^http:\/\/127\.0\.0\.1:\d+\/api\/v3\/account\/oauth\/applications\/\?page_size=2&page=2$/);
  const next = await server.call('GET', page.json.next, { key });
  t.is(next.json.results.length, 2);
  t.truthy(next.json.previous);

  const bad = await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: '' } });
  t.is(bad.status, 400);
  t.is(bad.json.code, 'invalid');
  t.deepEqual(bad.json.errors.map((e: { field: string }) => e.field), ['name']);
  t.is((await server.call('GET', '/api/v3/account/oauth/applications/abc/', { key })).status, 404);
  t.is((await server.call('GET', '/api/v4/account/oauth/applications/', { key })).status, 404, 'OAuth applications are v3 only');
});

test('missing or wrong credentials are 401', async (t) => {
  const none = await server.call('GET', '/api/v4/account/');
  t.is(none.status, 401);
  t.like(none.json, { status_code: 401, code: 'not_authenticated' });
  const wrong = await server.call('GET', '/api/v4/account/', { key: 'fk_wrong' });
  t.like(wrong.json, { status_code: 401, code: 'authentication_failed' });
  const scheme = await server.call('GET', '/api/v4/account/', { headers: { authorization: `Digest ${key}` } });
  t.is(scheme.status, 401);
  const basicOnApi = await server.call('GET', '/api/v4/account/', { headers: { authorization: basic('x', 'y') } });
  t.is(basicOnApi.status, 401);
});
