import test from 'ava';
import { startTestServer, type TestServer } from '@filigrane/testing';

let server: TestServer;

test.before(async () => {
  server = await startTestServer({ plugins: ['account'], workers: false });
});
test.after.always(async () => server?.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function bearerFor(key: string): Promise<string> {
  const app = await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: 'machine' } });
  const token = await server.call('POST', '/o/token/', {
    body: 'grant_type=client_credentials',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app.json.client_id, app.json.client_secret) },
  });
  if (token.status !== 200) throw new Error(`token: ${app.text} ${token.text}`);
  return token.json.access_token as string;
}

const gql = (auth: { key?: string; bearer?: string }, query: string) => server.call('POST', '/graphql', { ...auth, json: { query } });

test('a bearer token can neither read nor rotate the API key (REST and GraphQL)', async (t) => {
  const { apiKey: key } = await server.createAccount('keyscope');
  const bearer = await bearerFor(key);
  for (const v of ['v3', 'v4']) {
    const read = await server.call('GET', `/api/${v}/account/settings/api_key/`, { bearer });
    t.is(read.status, 403, JSON.stringify(read.json));
    t.is(read.json.code, 'permission_denied');
    t.false(read.text.includes(key));
    t.is((await server.call('POST', `/api/${v}/account/settings/api_key/`, { bearer })).status, 403);
  }
  const q = await gql({ bearer }, '{ accountApiKey }');
  t.is(q.json.errors[0].extensions.status_code, 403);
  t.false(q.text.includes(key));
  const m = await gql({ bearer }, 'mutation { rotateAccountApiKey }');
  t.is(m.json.errors[0].extensions.apiCode, 'permission_denied');
  // The bearer still works for everything else, and the key is unchanged.
  t.is((await server.call('GET', '/api/v4/account/', { bearer })).status, 200);
  t.is((await server.call('GET', '/api/v4/account/settings/api_key/', { key })).json.api_key, key);
  t.is((await gql({ key }, '{ accountApiKey }')).json.data.accountApiKey, key);
});

test('rotation issues a new key and revokes the old one at once; the key never changes otherwise', async (t) => {
  const { apiKey: key } = await server.createAccount('keyrotate');
  for (let i = 0; i < 3; i++) t.is((await server.call('GET', '/api/v4/account/settings/api_key/', { key })).json.api_key, key);
  t.is((await server.call('GET', '/api/v4/account/', { key })).status, 200); // now cached by the authenticator

  t.is((await server.call('POST', '/api/v4/account/settings/api_key/', { key, json: { keep: true } })).status, 400);
  const rotated = await server.call('POST', '/api/v4/account/settings/api_key/', { key });
  t.is(rotated.status, 200);
  const fresh = rotated.json.api_key as string;
  t.regex(fresh, /^fk_/);
  t.not(fresh, key);
  const old = await server.call('GET', '/api/v4/account/', { key });
  t.is(old.status, 401, 'the old key is revoked at once, cache included');
  t.is((await server.call('GET', '/api/v3/account/settings/api_key/', { key: fresh })).json.api_key, fresh);

  const viaGraphql = await gql({ key: fresh }, 'mutation { rotateAccountApiKey }');
  const third = viaGraphql.json.data.rotateAccountApiKey as string;
  t.not(third, fresh);
  t.is((await server.call('GET', '/api/v4/account/', { key: fresh })).status, 401);
  t.is((await server.call('GET', '/api/v4/account/', { key: third })).status, 200);
});

test('concurrent rotations leave exactly one working key', async (t) => {
  const { apiKey: key } = await server.createAccount('keyrace');
  const results = await Promise.all([1, 2, 3].map(() => server.call('POST', '/api/v4/account/settings/api_key/', { key, json: {} })));
  const keys = results.filter((r) => r.status === 200).map((r) => r.json.api_key as string);
  t.true(keys.length >= 1);
  const working = [];
  for (const k of keys) if ((await server.call('GET', '/api/v4/account/', { key: k })).status === 200) working.push(k);
  t.is(working.length, 1);
  t.is((await server.call('GET', '/api/v4/account/settings/api_key/', { key: working[0] })).json.api_key, working[0]);
});

test('a bearer token cannot delete the account either, and the refusal says so (not a word about reading the key)', async (t) => {
  const { apiKey: key } = await server.createAccount('keepme');
  const bearer = await bearerFor(key);
  const del = await server.call('DELETE', '/api/v4/account/', { bearer, json: { username: 'keepme' } });
  t.is(del.status, 403, del.text);
  t.is(del.json.code, 'permission_denied');
  t.regex(del.json.details, /delete/i, del.text);
  t.notRegex(del.json.details, /read or rotated/, del.text);
  t.is((await server.call('GET', '/api/v4/account/', { key })).status, 200, 'the account is still there');
});
