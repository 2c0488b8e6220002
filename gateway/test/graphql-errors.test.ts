import test from 'ava';
import { startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer();
  key = (await server.createAccount('gqlerrors')).apiKey;
});
test.after.always(async () => server?.close());

// Apollo wraps its own refusals with the GraphQLError as `originalError`; they used to reach the REST
// error mapping as unknown errors and came back as `server_error` / 500 with the reason hidden.
test('syntax, validation and variable errors are the client\'s: status_code 400, Apollo\'s code, the reason', async (t) => {
  const cases: [unknown, string, RegExp][] = [
    [{ query: '{' }, 'GRAPHQL_PARSE_FAILED', /Syntax Error/],
    [{ query: '{ noSuchField }' }, 'GRAPHQL_VALIDATION_FAILED', /noSuchField/],
    [{ query: '{ media(path: 1) { __typename } }' }, 'GRAPHQL_VALIDATION_FAILED', /String cannot represent/],
    [{ query: 'query Q($path: String!) { media(path: $path) { __typename } }', variables: { path: null } }, 'BAD_USER_INPUT', /must not be null/],
    [{ query: 'query Q($p: Int) { mediaFolder(page: $p) { __typename } }', variables: { p: 2 ** 31 } }, 'BAD_USER_INPUT', /32-bit/],
    [{ query: 'query A { account { username } } query B { account { username } }' }, 'OPERATION_RESOLUTION_FAILURE', /operation name/],
    // More than 50 bad variable values: graphql-js gives up with an error of its own (no original, no path).
    [{ query: 'mutation Q($t: [String!]) { updateMatch(id: "1", tags: $t) { id } }', variables: { t: Array(60).fill(1) } }, 'BAD_USER_INPUT', /Too many errors/],
  ];
  for (const [body, code, reason] of cases) {
    const res = await server.call('POST', '/graphql', { key, json: body });
    t.is(res.status, 400, JSON.stringify(body));
    t.truthy(res.headers.get('x-request-id'));
    for (const error of res.json.errors) {
      t.is(error.extensions.status_code, 400, res.text);
      t.is(error.extensions.details, error.message);
      t.is(error.extensions.apiCode, String(error.extensions.code).toLowerCase(), 'an apiCode as every other error has');
      t.is(error.extensions.stacktrace, undefined, 'no stack trace in the answer');
    }
    t.true(res.json.errors.some((e: { message: string; extensions: { code: string } }) => e.extensions.code === code && reason.test(e.message)), res.text.slice(0, 500));
  }
});

test('an error a resolver raises keeps its own code and status', async (t) => {
  const res = await server.call('POST', '/graphql', { key, json: { query: '{ crawlSession(id: 987654) { id } }' } });
  t.is(res.status, 200);
  t.is(res.json.errors[0].extensions.code, 'NOT_FOUND', res.text);
  t.is(res.json.errors[0].extensions.apiCode, 'not_found');
  t.is(res.json.errors[0].extensions.status_code, 404);
});

/** Nothing in an answer may show a stack trace or where the server's files are. */
const leaks = (text: string) => /\bat [\w.<>]+ \(|node:internal|\/work\/|\/dist\/|\.js:\d+/.test(text);

test('refusals before execution are GraphQL errors: wrong credentials, an empty body, variables as a string, a mutation by GET', async (t) => {
  const wrongKey = await server.call('POST', '/graphql', { key: 'not-a-key', json: { query: '{ account { username } }' } });
  t.is(wrongKey.status, 401);
  t.like(wrongKey.json.errors[0].extensions, { code: 'UNAUTHENTICATED', status_code: 401 });
  t.false('data' in wrongKey.json);
  const cases: [string, Parameters<TestServer['call']>[2], RegExp][] = [
    ['empty body', { key, headers: { 'content-type': 'application/json' }, body: '' }, /POST body missing/],
    ['variables as a string', { key, json: { query: '{ __typename }', variables: '{}' } }, /variables/],
    ['broken JSON', { key, headers: { 'content-type': 'application/json' }, body: '{"query":' }, /JSON/],
  ];
  for (const [label, options, reason] of cases) {
    const res = await server.call('POST', '/graphql', options);
    t.is(res.status, 400, label);
    t.regex(res.json.errors[0].message, reason, label);
    t.is(typeof res.json.errors[0].extensions.code, 'string', label);
    t.false(leaks(res.text), `${label}: ${res.text}`);
  }
  // GET runs queries (GraphQL over HTTP); a mutation by GET is refused, without a leak.
  const get = await server.call('GET', '/graphql?query=%7B__typename%7D', { key });
  t.is(get.status, 200, get.text);
  t.is(get.json.data.__typename, 'Query');
  const mutation = await server.call('GET', `/graphql?query=${encodeURIComponent('mutation { rotateAccountApiKey }')}`, { key });
  t.is(mutation.status, 405);
  t.false(leaks(mutation.text), mutation.text);
  t.truthy(mutation.json.errors[0].extensions.code);
});

test('a failing field is null with its error; the other fields keep their data', async (t) => {
  const res = await server.call('POST', '/graphql', { key, json: { query: '{ account { username } crawlSession(id: 99) { id } matches(pageSize: 0) { count } }' } });
  t.is(res.status, 200);
  t.is(res.json.data.account.username, 'gqlerrors');
  t.is(res.json.data.crawlSession, null);
  t.is(res.json.data.matches, null);
  const byPath = Object.fromEntries(res.json.errors.map((e: { path: string[]; extensions: unknown }) => [e.path[0], e.extensions]));
  t.like(byPath.crawlSession, { code: 'NOT_FOUND', status_code: 404 });
  t.like(byPath.matches, { code: 'BAD_USER_INPUT', apiCode: 'invalid_page_size', status_code: 400 });
});

test('not found as REST says it: media(path) and aggregation(id) are NOT_FOUND errors, not a silent null', async (t) => {
  const media = await server.call('POST', '/graphql', { key, json: { query: '{ media(path: "/gqlerrors/none.png") { path } }' } });
  t.like(media.json.errors[0], { path: ['media'], extensions: { code: 'NOT_FOUND', status_code: 404 } });
  const aggregation = await server.call('POST', '/graphql', { key, json: { query: '{ aggregation(name: "group-path", id: "12345") { id } }' } });
  t.like(aggregation.json.errors[0], { path: ['aggregation'], extensions: { code: 'NOT_FOUND' } });
  const noSuch = await server.call('POST', '/graphql', { key, json: { query: '{ aggregations(name: "group-nothing") { count } }' } });
  t.like(noSuch.json.errors[0].extensions, { code: 'NOT_FOUND' });
});

test('a bad filter value is BAD_USER_INPUT naming the REST parameter and the reason', async (t) => {
  const res = await server.call('POST', '/graphql', { key, json: { query: '{ matches(filter: { dateCreated: { gte: "yesterday" } }) { count } }' } });
  t.is(res.status, 200);
  t.like(res.json.errors[0].extensions, { code: 'BAD_USER_INPUT', apiCode: 'invalid_filter', status_code: 400 });
  t.regex(res.json.errors[0].message, /date_created__gte/);
  t.not(res.json.errors[0].message, 'A server error occurred. Please retry later.');
});

test('a subscription sent over HTTP is the client\'s error (400, it runs over WebSocket), not a 500', async (t) => {
  for (const body of [{ query: 'subscription { matchEvents { eventId } }' }, { query: 'query A { account { username } } subscription B { jobFinished { id } }', operationName: 'B' }]) {
    const res = await server.call('POST', '/graphql', { key, json: body });
    t.is(res.status, 400, res.text);
    const [error] = res.json.errors;
    t.like(error.extensions, { code: 'BAD_REQUEST', status_code: 400, apiCode: 'subscription_over_http' });
    t.regex(error.message, /WebSocket/);
  }
  const get = await server.call('GET', `/graphql?query=${encodeURIComponent('subscription { matchEvents { eventId } }')}`, { key });
  t.is(get.status, 405, 'by GET: refused like a mutation (GET runs queries only)');
  t.truthy(get.json.errors[0].message);
  const query = await server.call('POST', '/graphql', { key, json: { query: 'query A { account { username } } subscription B { jobFinished { id } }', operationName: 'A' } });
  t.is(query.json.data.account.username, 'gqlerrors', 'the query of a document that also holds a subscription still runs');
});

test('/graphql is a known path: another method is 405 with Allow; a mutation by GET says 405 in its status_code too', async (t) => {
  const put = await server.call('PUT', '/graphql', { key });
  t.is(put.status, 405, put.text);
  t.like(put.json, { status_code: 405, code: 'method_not_allowed' });
  t.deepEqual(put.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'OPTIONS', 'POST']);
  t.is((await server.call('PUT', '/no-such-path')).status, 404, 'an unknown path stays 404');
  const get = await server.call('GET', `/graphql?query=${encodeURIComponent('mutation { blacklistDomain(url: "x.com") }')}`, { key });
  t.is(get.status, 405);
  t.is(get.json.errors[0].extensions.status_code, 405, get.text);
});
