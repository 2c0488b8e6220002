import test from 'ava';
import { IdentityService } from '@filigrane/plugin-auth';
import { defaultPlugins } from '@filigrane/gateway';
import { bootTestServer } from '@filigrane/server';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { homePermission } from '@filigrane/core';
import { greetingPlugin } from '../support/greeting.plugin.js';
import { politeGreeterPlugin } from '../support/polite-greeter.plugin.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer({ plugins: [...defaultPlugins(), greetingPlugin, politeGreeterPlugin], workers: false });
});
test.after.always(async () => server?.close());

test('a third-party plugin adds a route, a GraphQL query and reads contributions to its extension point', async (t) => {
  const { apiKey } = await server.createAccount('carol');
  const rest = await server.call('GET', '/api/v4/greetings/carol/', { key: apiKey });
  t.is(rest.status, 200);
  t.deepEqual(rest.json.greetings, ['Hello, carol', 'Good morning, carol']);
  const gql = await server.call('POST', '/graphql', { key: apiKey, json: { query: '{ greetings(home: "/carol") }' } });
  t.deepEqual(gql.json.data.greetings, ['Hello, carol', 'Good morning, carol']);
});

test('acting on another home directory is 403 unless the permission was granted', async (t) => {
  const dave = await server.createAccount('dave');
  const erin = await server.createAccount('erin');
  const denied = await server.call('GET', '/api/v4/greetings/erin/', { key: dave.apiKey });
  t.is(denied.status, 403);
  t.like(denied.json, { status_code: 403, code: 'permission_denied' });
  const gqlDenied = await server.call('POST', '/graphql', { key: dave.apiKey, json: { query: '{ greetings(home: "/erin") }' } });
  t.is(gqlDenied.json.errors[0].extensions.status_code, 403);

  await server.app.container.get(IdentityService).grant(dave.id, homePermission('/erin'));
  // API-key principals are cached for a few seconds; a fresh OAuth token reads the grant at once.
  const app = await server.call('POST', '/api/v3/account/oauth/applications/', { key: dave.apiKey, json: { name: 'x' } });
  const token = await server.call('POST', '/o/token/', {
    body: `grant_type=client_credentials&client_id=${app.json.client_id}&client_secret=${app.json.client_secret}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const allowed = await server.call('GET', '/api/v4/greetings/erin/', { bearer: token.json.access_token });
  t.is(allowed.status, 200);
  t.deepEqual((await server.call('GET', '/api/v4/account/', { bearer: token.json.access_token })).json.permissions, ['home:/erin']);
  t.is((await server.call('GET', '/api/v4/greetings/dave/', { key: erin.apiKey })).status, 403, 'grants are one-way');
});

test('two accounts never see each other\'s data', async (t) => {
  const one = await server.createAccount('isoone');
  const two = await server.createAccount('isotwo');
  const app = await server.call('POST', '/api/v3/account/oauth/applications/', { key: one.apiKey, json: { name: 'private' } });
  await server.call('POST', '/api/v4/domains/blacklist/', { key: one.apiKey, json: { url: 'one-only.com' } });
  await server.call('POST', '/api/v4/account/settings/', { key: one.apiKey, json: { lang: 'fr' } });

  t.deepEqual((await server.call('GET', '/api/v3/account/oauth/applications/', { key: two.apiKey })).json.results, []);
  t.is((await server.call('GET', `/api/v3/account/oauth/applications/${app.json.id}/`, { key: two.apiKey })).status, 404);
  t.is((await server.call('DELETE', `/api/v3/account/oauth/applications/${app.json.id}/`, { key: two.apiKey })).status, 404);
  t.is((await server.call('GET', `/api/v3/account/oauth/applications/${app.json.id}/`, { key: one.apiKey })).status, 200, 'still there');
  t.deepEqual((await server.call('GET', '/api/v4/domains/blacklist/', { key: two.apiKey })).json.results, []);
  t.is((await server.call('GET', '/api/v4/account/settings/', { key: two.apiKey })).json.lang, 'en');
  t.is((await server.call('GET', '/api/v4/account/', { key: two.apiKey })).json.username, 'isotwo');
  const der1 = await server.call('GET', '/api/v4/account/download/public_key.der', { key: one.apiKey });
  const der2 = await server.call('GET', '/api/v4/account/download/public_key.der', { key: two.apiKey });
  t.not(der1.text, der2.text, 'each account has its own key pair');
});

// The gateway's own boot check (the test kit would add auth and account by itself).
test('boot fails clearly on a missing required plugin', async (t) => {
  const err = await t.throwsAsync(bootTestServer({ plugins: [greetingPlugin], env: process.env, workers: false }));
  t.regex(err?.message ?? '', /plugin "greeting" requires plugin "auth", which is not loaded/);
});
