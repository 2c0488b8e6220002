import test from 'ava';
import { startTestServer, type CallResult, type TestServer } from '@filigrane/testing';

// Browser sessions as a browser meets them: sign in with a password, a cookie, the CSRF header on
// anything that changes something; API keys and OAuth tokens keep working beside them.
let server: TestServer;
let key: string;
const PASSWORD = 'correct horse battery staple';

test.before(async () => {
  server = await startTestServer({ plugins: ['auth', 'account'], clock: new Date('2026-06-01T12:00:00Z'), config: { trustProxy: 1 } });
  key = (await server.createAccount('alice')).apiKey;
  const set = await gql({ key }, 'mutation { changePassword(newPassword: "correct horse battery staple") }');
  if (set.json?.data?.changePassword !== true) throw new Error(set.text);
});
test.after.always(async () => {
  await server?.close();
});

interface Browser {
  cookie?: string;
  csrf?: string;
  key?: string;
  bearer?: string;
  from?: string;
}
const headersOf = (b: Browser, extra: Record<string, string> = {}) => ({
  ...(b.cookie ? { cookie: b.cookie } : {}),
  ...(b.csrf ? { 'x-csrf-token': b.csrf } : {}),
  'x-forwarded-for': b.from ?? '192.0.2.1',
  ...extra,
});
const req = (b: Browser, method: string, path: string, json?: unknown) => server.call(method, path, { key: b.key, bearer: b.bearer, json, headers: headersOf(b) });
const gql = (b: Browser, query: string, variables?: unknown) => req(b, 'POST', '/graphql', { query, variables });

async function signIn(username: string, password: string, from = '192.0.2.1'): Promise<{ res: CallResult; browser: Browser }> {
  const res = await server.call('POST', '/api/v4/session/', { json: { username, password }, headers: { 'x-forwarded-for': from, 'user-agent': 'ava-browser' } });
  const setCookie = res.headers.getSetCookie()[0] ?? '';
  return { res, browser: { cookie: setCookie.split(';')[0], csrf: res.json?.csrf_token, from } };
}

test.serial('a password signs in: HttpOnly SameSite cookie, CSRF token, the same principal as the API key', async (t) => {
  const { res, browser } = await signIn('alice', PASSWORD);
  t.is(res.status, 201, res.text);
  const setCookie = res.headers.getSetCookie()[0]!;
  t.regex(setCookie, /^filigrane_session=fs_[A-Za-z0-9_-]{40};/);
  t.regex(setCookie, /HttpOnly/);
  t.regex(setCookie, /SameSite=Strict/);
  t.regex(setCookie, /Path=\//);
  t.notRegex(setCookie, /Secure/, 'plain http on loopback: no Secure flag');
  // Behind a trusted https proxy (TRUST_PROXY 1 here), the cookie is Secure.
  const proxied = await server.call('POST', '/api/v4/session/', { json: { username: 'alice', password: PASSWORD }, headers: { 'x-forwarded-for': '192.0.2.1', 'x-forwarded-proto': 'https' } });
  t.is(proxied.status, 201);
  t.regex(proxied.headers.getSetCookie()[0]!, /; Secure/);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.like(res.json, { username: 'alice' });
  t.regex(res.json.csrf_token, /^[A-Za-z0-9_-]{43}$/);

  const viaCookie = await req({ cookie: browser.cookie }, 'GET', '/api/v4/account/');
  const viaKey = await req({ key }, 'GET', '/api/v4/account/');
  t.is(viaCookie.status, 200, viaCookie.text);
  t.deepEqual(viaCookie.json, viaKey.json, 'the session is the same account as the API key');
  const current = await req({ cookie: browser.cookie }, 'GET', '/api/v4/session/');
  t.is(current.status, 200);
  t.is(current.json.csrf_token, browser.csrf, 'a reloaded page gets its CSRF token back');
  t.is((await req({ key }, 'GET', '/api/v4/session/')).status, 404, 'an API key has no browser session');

  // GraphQL with the cookie: reads need nothing more; a POST needs the CSRF header.
  const noCsrf = await gql({ cookie: browser.cookie }, '{ hasPassword }');
  t.is(noCsrf.status, 403, noCsrf.text);
  t.like(noCsrf.json.errors[0].extensions, { status_code: 403, code: 'FORBIDDEN', apiCode: 'csrf_failed' });
  const wrongCsrf = await gql({ cookie: browser.cookie, csrf: 'x'.repeat(43) }, '{ hasPassword }');
  t.is(wrongCsrf.status, 403);
  const withCsrf = await gql(browser, '{ hasPassword browserSessions { id current userAgent address } }');
  t.is(withCsrf.status, 200, withCsrf.text);
  t.true(withCsrf.json.data.hasPassword);
  t.like(withCsrf.json.data.browserSessions.find((s: { current: boolean }) => s.current), { userAgent: 'ava-browser', address: '192.0.2.1' });

  // REST changes need the header too; with it, the console may rotate the API key (a bearer may not).
  t.is((await req({ cookie: browser.cookie }, 'POST', '/api/v4/account/settings/api_key/')).status, 403);
  const rotated = await req(browser, 'POST', '/api/v4/account/settings/api_key/');
  t.is(rotated.status, 200, rotated.text);
  const newKey = rotated.json.api_key as string;
  t.truthy(newKey);
  t.is((await req({ key }, 'GET', '/api/v4/account/')).status, 401, 'the old key stops working');
  key = newKey;
  t.is((await req({ key }, 'GET', '/api/v4/account/')).status, 200);
});

test.serial('the API key and OAuth tokens work as before, and an Authorization header wins over a cookie', async (t) => {
  const { browser } = await signIn('alice', PASSWORD);
  const bob = await server.createAccount('bob');
  // Bob's key with Alice's cookie: Bob (the header is what an API client means).
  const mixed = await server.call('GET', '/api/v4/account/', { key: bob.apiKey, headers: { cookie: browser.cookie! } });
  t.is(mixed.json.username, 'bob');
  // No CSRF asked of an API key, even with a stray cookie.
  t.is((await server.call('POST', '/graphql', { key: bob.apiKey, json: { query: '{ hasPassword }' }, headers: { cookie: browser.cookie! } })).json.data.hasPassword, false);
  const app = await req({ key }, 'POST', '/api/v3/account/oauth/applications/', { name: 'machine' });
  const token = await server.call('POST', '/o/token/', {
    body: 'grant_type=client_credentials',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${app.json.client_id}:${app.json.client_secret}`).toString('base64')}` },
  });
  const bearer = token.json.access_token as string;
  t.is((await req({ bearer }, 'GET', '/api/v4/account/')).json.username, 'alice');
  const denied = await gql({ bearer }, 'mutation { changePassword(newPassword: "an attacker password") }');
  t.is(denied.json.errors[0].extensions.status_code, 403, denied.text);
  t.is((await req({ bearer }, 'POST', '/api/v4/account/settings/api_key/')).status, 403, 'a bearer still cannot rotate the key');
  t.is((await req({ bearer }, 'GET', '/api/v4/session/')).status, 404);
  const wrongKey = await server.call('GET', '/api/v4/account/', { key: 'fk_wrong', headers: { cookie: browser.cookie! } });
  t.is(wrongKey.status, 401, 'a wrong key is not rescued by a valid cookie');
});

test.serial('wrong passwords: one answer for unknown names and wrong passwords, then throttled per address and name', async (t) => {
  const wrong = await signIn('alice', 'not the password', '198.51.100.1');
  t.is(wrong.res.status, 401);
  t.like(wrong.res.json, { status_code: 401, code: 'invalid_credentials' });
  t.deepEqual(wrong.res.headers.getSetCookie(), []);
  const unknown = await signIn('nobody', 'not the password', '198.51.100.2');
  t.deepEqual(unknown.res.json, wrong.res.json);
  const missing = await server.call('POST', '/api/v4/session/', { json: { username: 'alice' }, headers: { 'x-forwarded-for': '198.51.100.3' } });
  t.is(missing.status, 400);
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push((await signIn('alice', `guess ${i}`, '198.51.100.9')).res.status);
  t.true(statuses.includes(429), statuses.join(','));
  const held = await signIn('alice', PASSWORD, '198.51.100.9');
  t.is(held.res.status, 429, 'the guessing address waits, even with the right password');
  t.truthy(held.res.headers.get('retry-after'));
  const owner = await signIn('alice', PASSWORD, '203.0.113.50');
  t.is(owner.res.status, 201, 'the owner signs in from elsewhere');
});

test.serial('sign out, sign out everywhere, idle and absolute expiry', async (t) => {
  const one = (await signIn('alice', PASSWORD)).browser;
  const two = (await signIn('alice', PASSWORD)).browser;
  const out = await req(one, 'DELETE', '/api/v4/session/');
  t.is(out.status, 204, out.text);
  t.regex(out.headers.getSetCookie()[0]!, /^filigrane_session=;.*Max-Age=0/);
  t.is((await req(one, 'GET', '/api/v4/account/')).status, 401, 'a signed-out cookie is worth nothing');
  t.is((await req(two, 'GET', '/api/v4/account/')).status, 200);
  const three = (await signIn('alice', PASSWORD)).browser;
  t.is((await req(two, 'DELETE', '/api/v4/sessions/')).status, 204);
  t.is((await req(two, 'GET', '/api/v4/account/')).status, 401);
  t.is((await req(three, 'GET', '/api/v4/account/')).status, 401, 'every session ended');

  const idle = (await signIn('alice', PASSWORD)).browser;
  server.clock.advance(11 * 3_600_000);
  t.is((await req(idle, 'GET', '/api/v4/account/')).status, 200, 'used within 12 h: alive (and touched)');
  server.clock.advance(11 * 3_600_000);
  t.is((await req(idle, 'GET', '/api/v4/account/')).status, 200);
  server.clock.advance(12 * 3_600_000 + 1000);
  t.is((await req(idle, 'GET', '/api/v4/account/')).status, 401, 'unused for 12 h: expired');

  const busy = (await signIn('alice', PASSWORD)).browser;
  for (let h = 0; h < 7 * 24; h += 10) {
    server.clock.advance(10 * 3_600_000);
    if ((await req(busy, 'GET', '/api/v4/account/')).status !== 200) break;
  }
  t.is((await req(busy, 'GET', '/api/v4/account/')).status, 401, 'seven days after sign-in: expired however active');
});

test.serial('ending a session that does not exist (or is another account\'s) is a 404; the counts are what was ended', async (t) => {
  const bob = await server.createAccount('bob-sessions');
  const set = await gql({ key: bob.apiKey }, 'mutation { changePassword(newPassword: "another horse battery staple") }');
  t.is(set.json?.data?.changePassword, true, set.text);
  const bobs = (await signIn('bob-sessions', 'another horse battery staple', '192.0.2.9')).browser;
  const bobId = (await req(bobs, 'GET', '/api/v4/sessions/')).json.results[0].id;
  const mine = (await signIn('alice', PASSWORD)).browser;
  const others = [(await signIn('alice', PASSWORD)).browser, (await signIn('alice', PASSWORD)).browser];

  for (const id of [999_999, bobId]) {
    const rest = await req({ key }, 'DELETE', `/api/v4/sessions/${id}/`);
    t.is(rest.status, 404, `REST ${id}: ${rest.text}`);
    t.is(rest.json.code, 'not_found');
    const graphql = await gql({ key }, `mutation { revokeBrowserSession(id: ${id}) }`);
    t.is(graphql.json.data?.revokeBrowserSession, false, `GraphQL ${id}: ${graphql.text}`);
  }
  t.is((await req(bobs, 'GET', '/api/v4/account/')).status, 200, "bob's session lives on");
  // Two other sessions of alice's end; the one asking stays.
  const ended = await gql(mine, 'mutation { revokeOtherBrowserSessions }');
  t.is(ended.json.data?.revokeOtherBrowserSessions, 2, ended.text);
  t.is((await gql(mine, 'mutation { revokeOtherBrowserSessions }')).json.data?.revokeOtherBrowserSessions, 0, 'none left to end');
  for (const o of others) t.is((await req(o, 'GET', '/api/v4/account/')).status, 401);
  t.is((await req(mine, 'GET', '/api/v4/account/')).status, 200);
});

test.serial('changing the password in the console needs the current one and ends the other sessions', async (t) => {
  const mine = (await signIn('alice', PASSWORD)).browser;
  const other = (await signIn('alice', PASSWORD)).browser;
  const mutation = 'mutation($n: String!, $c: String) { changePassword(newPassword: $n, currentPassword: $c) }';
  const short = await gql(mine, mutation, { n: 'short', c: PASSWORD });
  t.is(short.json.errors[0].extensions.status_code, 400, short.text);
  const wrong = await gql(mine, mutation, { n: 'a brand new passphrase', c: 'not it at all' });
  t.like(wrong.json.errors[0].extensions, { status_code: 400, code: 'BAD_USER_INPUT', apiCode: 'invalid' });
  t.is((await signIn('alice', 'a brand new passphrase')).res.status, 401, 'unchanged');
  const changed = await gql(mine, mutation, { n: 'a brand new passphrase', c: PASSWORD });
  t.true(changed.json.data?.changePassword, changed.text);
  t.is((await req(mine, 'GET', '/api/v4/account/')).status, 200, 'this session goes on');
  t.is((await req(other, 'GET', '/api/v4/account/')).status, 401, 'the other one ended');
  t.is((await signIn('alice', PASSWORD)).res.status, 401);
  t.is((await signIn('alice', 'a brand new passphrase')).res.status, 201);
});

test.serial('PUT /api/v4/account/password/: the same rule over REST (current one with a session, checked when given with the key), 204, other sessions end', async (t) => {
  const now = 'a brand new passphrase';
  const mine = (await signIn('alice', now)).browser;
  const other = (await signIn('alice', now)).browser;
  const put = (b: Browser, json: unknown) => req(b, 'PUT', '/api/v4/account/password/', json);
  const missing = await put(mine, { new_password: 'the REST passphrase' });
  t.is(missing.status, 400, missing.text);
  t.like(missing.json, { status_code: 400 });
  t.truthy(missing.json.details?.current_password, missing.text);
  const short = await put(mine, { new_password: 'short', current_password: now });
  t.is(short.status, 400);
  t.regex(JSON.stringify(short.json.details?.new_password), /at least 10 characters/);
  const nul = await put(mine, { new_password: 'with a \u0000 inside it', current_password: now });
  t.is(nul.status, 400);
  const withoutCsrf = await req({ cookie: mine.cookie, from: mine.from }, 'PUT', '/api/v4/account/password/', { new_password: 'the REST passphrase', current_password: now });
  t.is(withoutCsrf.status, 403, 'a cookie without the CSRF header changes nothing');
  t.is((await signIn('alice', 'the REST passphrase')).res.status, 401, 'unchanged so far');
  const changed = await put(mine, { new_password: 'the REST passphrase', current_password: now });
  t.is(changed.status, 204, changed.text);
  t.is(changed.headers.get('cache-control'), 'no-store');
  t.is((await req(mine, 'GET', '/api/v4/account/')).status, 200, 'this session goes on');
  t.is((await req(other, 'GET', '/api/v4/account/')).status, 401, 'the other one ended');
  t.is((await signIn('alice', now)).res.status, 401);
  const fresh = await signIn('alice', 'the REST passphrase');
  t.is(fresh.res.status, 201);
  // With the API key the current password is not needed, but a wrong one given is refused; every session ends.
  const wrongWithKey = await put({ key }, { new_password: 'a key-set passphrase', current_password: 'not it at all' });
  t.is(wrongWithKey.status, 400, wrongWithKey.text);
  t.is((await put({ key }, { new_password: 'a key-set passphrase' })).status, 204);
  t.is((await req(fresh.browser, 'GET', '/api/v4/account/')).status, 401, 'a change with the key ends every browser session');
  t.is((await signIn('alice', 'a key-set passphrase')).res.status, 201);
});
