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
    [{ query: 'mutation Q($t: [String!]) { updateMatch(id: "1", tags: $t) }', variables: { t: Array(60).fill(1) } }, 'BAD_USER_INPUT', /Too many errors/],
  ];
  for (const [body, code, reason] of cases) {
    const res = await server.call('POST', '/graphql', { key, json: body });
    t.is(res.status, 400, JSON.stringify(body));
    t.truthy(res.headers.get('x-request-id'));
    for (const error of res.json.errors) {
      t.is(error.extensions.status_code, 400, res.text);
      t.is(error.extensions.details, error.message);
      t.is(error.extensions.stacktrace, undefined, 'no stack trace in the answer');
    }
    t.true(res.json.errors.some((e: { message: string; extensions: { code: string } }) => e.extensions.code === code && reason.test(e.message)), res.text.slice(0, 500));
  }
});

test('an error a resolver raises keeps its own code and status', async (t) => {
  const res = await server.call('POST', '/graphql', { key, json: { query: '{ crawlSession(id: 987654) { id } }' } });
  t.is(res.status, 200);
  t.is(res.json.errors[0].extensions.code, 'not_found', res.text);
  t.is(res.json.errors[0].extensions.status_code, 404);
});
