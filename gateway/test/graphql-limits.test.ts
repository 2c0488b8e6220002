import test from 'ava';
import { createHash } from 'node:crypto';
import { getIntrospectionQuery } from 'graphql';
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
  // Refused before execution, in GraphQL's shape: QUERY_TOO_COMPLEX with the limit crossed and the cost.
  t.like(deep.json.errors[0].extensions, { code: 'QUERY_TOO_COMPLEX', limitName: 'depth', limit: 10, status_code: 400 });
  t.is(typeof deep.json.errors[0].extensions.cost, 'number');
  t.regex(deep.json.errors[0].message, /depth/);
  t.false('data' in deep.json);

  const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: account { username }`).join(' ');
  const aliased = await gql({ query: `{ ${aliases} }` });
  t.is(aliased.status, 400);
  t.like(aliased.json.errors[0].extensions, { code: 'QUERY_TOO_COMPLEX', limitName: 'aliases', limit: 30, cost: 62 });
  t.regex(aliased.json.errors[0].message, /aliases 31 over the limit of 30/);

  const writes = Array.from({ length: 6 }, (_, i) => `m${i}: updateAccountSettings(input: { lang: "fr" }) { lang }`).join(' ');
  const mutations = await gql({ query: `mutation { ${writes} }` });
  t.is(mutations.status, 400);
  t.regex(mutations.json.errors[0].message, /mutations/);
  t.is((await gql({ query: '{ accountSettings { lang } }' })).json.data.accountSettings.lang, 'en', 'the refused mutations did not run');

  const batch = await gql([{ query: '{ account { username } }' }, { query: '{ account { username } }' }]);
  t.is(batch.status, 400);
  t.like(batch.json.errors[0].extensions, { code: 'BAD_REQUEST', apiCode: 'batch_not_supported' });

  // The standard introspection query (GraphiQL's, codegen's) nests `ofType` 13 deep: its depth is not counted.
  const introspection = await gql({ query: getIntrospectionQuery() });
  t.is(introspection.status, 200, introspection.text.slice(0, 300));
  t.truthy(introspection.json.data.__schema.queryType);

  const fine = await gql({ query: '{ account { username quotas { userPaths } } }' });
  t.is(fine.status, 200);
  t.is(fine.json.data.account.username, 'gqlimits');
});

test.serial('fragment bombs are measured in linear time: refused at once, whatever their expansion', async (t) => {
  // F0 { ...F1 ...F1 } F1 { ...F2 ...F2 }...: 2^40 expansions. Ending in a field it is too costly; ending
  // in an unknown fragment or a cycle it has no field at all and validation refuses it. Either way one
  // request used to block the process (the measure expanded every spread one by one: minutes at 30 levels).
  const bomb = (leaf: string) =>
    `query { ...F0 } ${Array.from({ length: 40 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F40 on Query { ${leaf} }`;
  for (const [leaf, code] of [['account { username }', 'QUERY_TOO_COMPLEX'], ['...Nowhere', 'GRAPHQL_VALIDATION_FAILED'], ['...F0', 'GRAPHQL_VALIDATION_FAILED']] as const) {
    const started = Date.now();
    const answer = await gql({ query: bomb(leaf) });
    t.true(Date.now() - started < 5_000, `${leaf}: answered in ${Date.now() - started} ms`);
    t.is(answer.status, 400, answer.text.slice(0, 300));
    t.is(answer.json.errors[0].extensions.code, code, answer.text.slice(0, 300));
  }
  const fragments = await gql({ query: 'query { ...A ...A } fragment A on Query { account { ...B ...B } } fragment B on Account { username quotas { userPaths } }' });
  t.is(fragments.status, 200, fragments.text.slice(0, 300));
  t.is(fragments.json.data.account.username, 'gqlimits');
});

test.serial('a persisted query run by its hash passes the same limits, for the operation that runs', async (t) => {
  // Apollo's automatic persisted queries: the text is sent once with its hash, then the hash alone.
  const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: account { username }`).join(' ');
  const doc = `query Cheap { account { username } } query Wide { ${aliases} }`;
  const extensions = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(doc).digest('hex') } };
  const stored = await gql({ query: doc, operationName: 'Cheap', extensions });
  t.is(stored.status, 200, stored.text.slice(0, 300));
  // The other operation of the stored text, by hash: it was run unmeasured (31 aliases, counted as one request).
  const wide = await gql({ operationName: 'Wide', extensions });
  t.is(wide.status, 400, wide.text.slice(0, 300));
  t.like(wide.json.errors[0].extensions, { code: 'QUERY_TOO_COMPLEX', limitName: 'aliases', limit: 30, status_code: 400 });
  t.false('data' in wide.json);
  const byGet = await server.call('GET', `/graphql?operationName=Wide&extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { key });
  t.is(byGet.status, 400, byGet.text.slice(0, 300));
  const cheap = await gql({ operationName: 'Cheap', extensions });
  t.is(cheap.json.data?.account.username, 'gqlimits', cheap.text.slice(0, 300));

  // A costly one run by hash counts its cost in the rate limits, as its text would.
  const costly = `{ account { ${'username '.repeat(499)} } }`; // cost 500: five requests
  const hashed = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(costly).digest('hex') } };
  t.is((await gql({ query: costly, extensions: hashed })).status, 200);
  const again = await gql({ extensions: hashed });
  t.is(again.status, 200, again.text.slice(0, 300));
  t.is(again.headers.get('x-ratelimit-secondly-remaining'), '15', 'one on arrival and four for the cost');
});

test.serial('a costly query counts as several requests in the rate limits', async (t) => {
  const cheap = await gql({ query: '{ account { username } }' });
  t.is(cheap.headers.get('x-ratelimit-secondly-remaining'), '19');
  const costly = await gql({ query: `{ account { ${'username '.repeat(499)} } }` }); // cost 500: five requests
  t.is(costly.status, 200);
  t.is(costly.headers.get('x-ratelimit-secondly-remaining'), '15');
  const tooCostly = await gql({ query: `{ account { ${'username '.repeat(998)} } }` }); // cost 999: ten
  t.is(tooCostly.headers.get('x-ratelimit-secondly-remaining'), '10');
  // The same second: the next costly one is over the limit, refused as RATE_LIMITED with when to retry.
  let limited = await server.call('POST', '/graphql', { key, json: { query: `{ account { ${'username '.repeat(499)} } }` } });
  for (let i = 0; i < 5 && limited.status !== 429; i++) limited = await server.call('POST', '/graphql', { key, json: { query: `{ account { ${'username '.repeat(499)} } }` } });
  t.is(limited.status, 429, limited.text);
  t.like(limited.json.errors[0].extensions, { code: 'RATE_LIMITED', status_code: 429 });
  t.is(typeof limited.json.errors[0].extensions.retryAfter, 'number');
  t.truthy(limited.headers.get('retry-after'));
});
