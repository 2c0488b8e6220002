import test from 'ava';
import { BlacklistService } from '@filigrane/plugin-blacklist';
import { startTestServer, type TestServer } from '@filigrane/testing';

let server: TestServer;
let alice: { apiKey: string; id: number };
let bob: { apiKey: string; id: number };

test.before(async () => {
  server = await startTestServer({ plugins: ['blacklist'], workers: false });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
});
test.after.always(async () => server?.close());

for (const v of ['v3', 'v4']) {
  test.serial(`${v}: add (201, then 200 when repeated), list, delete (204, then 404)`, async (t) => {
    const path = `/api/${v}/domains/blacklist/`;
    const key = alice.apiKey;
    const added = await server.call('POST', path, { key, json: { url: 'HTTP://News.Example.ORG:8080/page' } });
    t.is(added.status, 201);
    t.deepEqual(added.json, { url: 'news.example.org' });
    const again = await server.call('POST', path, { key, json: { url: 'news.example.org' } });
    t.is(again.status, 200);
    const list = await server.call('GET', path, { key });
    t.deepEqual(list.json, { next: null, previous: null, results: [{ url: 'news.example.org' }] });
    t.is((await server.call('DELETE', path, { key, json: { url: 'https://news.example.org/' } })).status, 204);
    const gone = await server.call('DELETE', path, { key, json: { url: 'news.example.org' } });
    t.is(gone.status, 404);
    t.is(gone.json.code, 'not_found');
    t.deepEqual((await server.call('GET', path, { key })).json.results, []);
  });
}

test('invalid domains and bodies are 400 with the field named', async (t) => {
  for (const url of ['localhost', '10.0.0.1', 'not a domain']) {
    const res = await server.call('POST', '/api/v4/domains/blacklist/', { key: alice.apiKey, json: { url } });
    t.is(res.status, 400, url);
    t.is(res.json.errors[0].field, 'url');
  }
  t.is((await server.call('POST', '/api/v4/domains/blacklist/', { key: alice.apiKey, json: {} })).json.errors[0].code, 'required');
  t.is((await server.call('DELETE', '/api/v4/domains/blacklist/', { key: alice.apiKey })).status, 411);
});

test('accounts never see each other\'s blacklist; subdomains are covered', async (t) => {
  await server.call('POST', '/api/v4/domains/blacklist/', { key: bob.apiKey, json: { url: 'bob-only.com' } });
  const aliceList = await server.call('GET', '/api/v4/domains/blacklist/', { key: alice.apiKey });
  t.false(JSON.stringify(aliceList.json).includes('bob-only'));
  t.is((await server.call('DELETE', '/api/v4/domains/blacklist/', { key: alice.apiKey, json: { url: 'bob-only.com' } })).status, 404);
  const svc = server.app.container.get(BlacklistService);
  t.true(await svc.isBlacklisted(bob.id, 'www.Bob-Only.com'));
  t.false(await svc.isBlacklisted(alice.id, 'www.bob-only.com'));
  t.false(await svc.isBlacklisted(bob.id, 'notbob-only.com'));
});

test('the list is available as CSV and through GraphQL', async (t) => {
  await server.call('POST', '/api/v4/domains/blacklist/', { key: bob.apiKey, json: { url: 'csv.example.net' } });
  const csv = await server.call('GET', '/api/v4/domains/blacklist/?format=csv', { key: bob.apiKey });
  t.regex(csv.headers.get('content-type') ?? '', /text\/csv/);
  t.true(csv.text.startsWith('url\r\n'));
  t.true(csv.text.includes('csv.example.net'));
  const gql = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: 'mutation { blacklistDomain(url: "https://GQL.example.com/x") }' } });
  t.is(gql.json.data.blacklistDomain, 'gql.example.com');
  const list = await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: '{ blacklistedDomains }' } });
  t.true(list.json.data.blacklistedDomains.includes('gql.example.com'));
});
