import test from 'ava';
import { ManualClock } from '@filigrane/core';
import { startTestServer, type TestServer } from './support/test-server.js';

const clock = new ManualClock(new Date('2026-06-05T10:00:00.100Z'));
let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer({ clock, config: { rateLimit: { perSecond: 20, perDay: 100_000 } } });
  key = (await server.createAccount('gqlimits')).apiKey;
});
test.after.always(async () => server?.close());

const gql = (body: unknown) => {
  clock.advance(1000); // a fresh second window for each request
  return server.call('POST', '/graphql', { key, json: body });
};

test.serial('depth, aliases, mutations and batches beyond the limits: 400 with a clear error, nothing run', async (t) => {
  const deep = await gql({ query: `{ account ${'{ quotas '.repeat(11)}{ userPaths }${' }'.repeat(11)} }` });
  t.is(deep.status, 400);
  t.is(deep.json.code, 'query_too_complex');
  t.regex(deep.json.details, /depth/);

  const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: account { username }`).join(' ');
  const aliased = await gql({ query: `{ ${aliases} }` });
  t.is(aliased.status, 400);
  t.regex(aliased.json.details, /aliases/);

  const writes = Array.from({ length: 6 }, (_, i) => `m${i}: updateAccountSettings(input: { lang: "fr" }) { lang }`).join(' ');
  const mutations = await gql({ query: `mutation { ${writes} }` });
  t.is(mutations.status, 400);
  t.regex(mutations.json.details, /mutations/);
  t.is((await gql({ query: '{ accountSettings { lang } }' })).json.data.accountSettings.lang, 'en', 'the refused mutations did not run');

  const batch = await gql([{ query: '{ account { username } }' }, { query: '{ account { username } }' }]);
  t.is(batch.status, 400);
  t.is(batch.json.code, 'batch_not_supported');

  const fine = await gql({ query: '{ account { username quotas { userPaths } } }' });
  t.is(fine.status, 200);
  t.is(fine.json.data.account.username, 'gqlimits');
});

test.serial('a costly query counts as several requests in the rate limits', async (t) => {
  const cheap = await gql({ query: '{ account { username } }' });
  t.is(cheap.headers.get('x-ratelimit-secondly-remaining'), '19');
  const costly = await gql({ query: `{ account { ${'username '.repeat(499)} } }` }); // cost 500: five requests
  t.is(costly.status, 200);
  t.is(costly.headers.get('x-ratelimit-secondly-remaining'), '15');
  const tooCostly = await gql({ query: `{ account { ${'username '.repeat(998)} } }` }); // cost 999: ten
  t.is(tooCostly.headers.get('x-ratelimit-secondly-remaining'), '10');
});
