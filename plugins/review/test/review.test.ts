import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { parse } from 'csv-parse/sync';
import { eventually, startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { NotificationService } from '@filigrane/plugin-notifications';
import { TOKENS, type AccountLifecycle } from '@filigrane/plugin-api';
import { REVIEW_SERVICE, type ReviewService } from '../src/index.js';

// Review states through real HTTP: one by one, in bulk by filter, the audit trail, the match-list
// filter, CSV, GraphQL, match.reviewed to a webhook, the digest section; isolation and bad input.

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;
const ids: Record<string, string> = {};
let bobMatch: string;
let media: Record<string, number> = {};

const day = (d: number) => new Date(Date.UTC(2026, 10, d, 12));

async function register(account: TestAccount, path: string, colour: string): Promise<number> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } }).png().toBuffer();
  const res = await account.call('PUT', `/api/v4/media${path}`, { json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (res.status !== 201) throw new Error(res.text);
  return Number(new URL(res.json.thumbnail).pathname.split('/')[4]);
}

async function sight(accountId: number, mediaId: number, page: string, seenAt: Date): Promise<string> {
  const m = await server.get(MatchRecorder).record({
    sighting: { accountId, source: 'test', kind: 'web', image: {}, imageUrl: `${page}.jpg`, page: { url: page }, seenAt },
    mediaId,
    watermarked: true,
    exclusive: null,
    query: { width: 10, height: 10, format: 'png' },
  });
  return String(m.id);
}

const review = async (id: string, account = alice) => (await account.call('GET', `/api/v4/matches/${id}/review/`)).json;
const count = async (query: string, account = alice) => {
  const res = await account.call('GET', `/api/v4/matches/${query}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.text}`);
  return res.json.count as number;
};

/** A webhook receiver on loopback: the bodies it was sent. */
async function receiver(): Promise<{ url: string; bodies: { type: string; data: Record<string, unknown> }[]; server: Server }> {
  const bodies: { type: string; data: Record<string, unknown> }[] = [];
  const http = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`, bodies, server: http };
}

test.before(async () => {
  server = await startTestServer({ plugins: ['review', 'aggregations'], clock: new Date('2026-11-20T09:00:00Z'), env: { REVIEW_LICENCE_SYNC_MAX: '3' }});
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
  media = { a: await register(alice, '/alice/press/a.png', '#aa2200'), b: await register(alice, '/alice/b.png', '#0022aa'), bob: await register(bob, '/bob/c.png', '#00aa22') };
  ids.lemonde = await sight(alice.id, media.a!, 'https://www.lemonde.fr/article', day(2));
  ids.blog = await sight(alice.id, media.a!, 'https://blog.example.com/post', day(3));
  ids.root = await sight(alice.id, media.b!, 'https://example.com/page', day(4));
  ids.bbc = await sight(alice.id, media.b!, 'https://news.bbc.co.uk/story', day(5));
  bobMatch = await sight(bob.id, media.bob!, 'https://www.lemonde.fr/article', day(2));
});
test.after.always(async () => server?.close());

test.serial('one match: new until reviewed, then its state, note and actor in the history; another account sees none of it', async (t) => {
  const fresh = await review(ids.lemonde!);
  t.like(fresh, { match_id: ids.lemonde, state: 'new', license_id: null, note: null, automatic: false, changed_at: day(2).toISOString() });

  const set = await alice.call('PUT', `/api/v4/matches/${ids.lemonde}/review/`, { json: { state: 'infringing', note: 'Used on the home page' } });
  t.is(set.status, 200, set.text);
  t.like(set.json, { state: 'infringing', note: 'Used on the home page', automatic: false });
  await alice.call('PUT', `/api/v4/matches/${ids.lemonde}/review/`, { json: { state: 'infringing' } }); // same state, no note: not recorded

  // An OAuth application acting for alice is named in the trail.
  const app = await alice.call('POST', '/api/v3/account/oauth/applications/', { json: { name: 'triage bot' } });
  const basic = Buffer.from(`${app.json.client_id}:${app.json.client_secret}`).toString('base64');
  const token = await server.call('POST', '/o/token/', { body: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` } });
  const byApp = await server.call('PUT', `/api/v4/matches/${ids.lemonde}/review/`, { bearer: token.json.access_token, json: { state: 'unsure' } });
  t.is(byApp.status, 200, byApp.text);

  const history = await alice.call('GET', `/api/v4/matches/${ids.lemonde}/review/history/`);
  t.is(history.status, 200);
  t.is(history.json.count, 2);
  t.like(history.json.results[0], { state: 'infringing', previous_state: 'new', note: 'Used on the home page', actor: { type: 'account', account_id: alice.id, username: 'alice', application_id: null } });
  t.like(history.json.results[1], { state: 'unsure', previous_state: 'infringing', actor: { type: 'application', account_id: alice.id, application_id: app.json.id } });
  t.is(history.json.results[0].changed_at, '2026-11-20T09:00:00.000Z', 'the time of the change (the server clock)');

  // Isolation: bob reaches none of alice's match reviews, and his own match is still new.
  for (const [method, path] of [['GET', `/api/v4/matches/${ids.lemonde}/review/`], ['GET', `/api/v4/matches/${ids.lemonde}/review/history/`], ['PUT', `/api/v4/matches/${ids.lemonde}/review/`]] as const) {
    const res = await bob.call(method, path, method === 'PUT' ? { json: { state: 'ignored' } } : {});
    t.is(res.status, 404, `${method} ${path}`);
    t.is(res.json.status_code, 404);
  }
  t.is((await review(bobMatch, bob)).state, 'new');
  t.is((await review(ids.lemonde!)).state, 'unsure');
  const service = server.get<ReviewService>(REVIEW_SERVICE);
  t.deepEqual([...(await service.states(bob.id, [ids.lemonde!, bobMatch])).keys()], [bobMatch], 'the service leaves out ids of another account');
});

test.serial('bad input: 4xx with the spec error body, nothing stored', async (t) => {
  const bad = async (method: string, path: string, json: unknown, status = 400) => {
    const res = await alice.call(method, path, { json });
    t.is(res.status, status, `${JSON.stringify(json)}: ${res.text}`);
    t.is(res.json.status_code, status);
    t.truthy(res.json.details);
    return res.json;
  };
  const one = `/api/v4/matches/${ids.blog}/review/`;
  t.truthy((await bad('PUT', one, { state: 'stolen' })).details.state);
  t.truthy((await bad('PUT', one, { state: 'ignored', colour: 'red' })).details.colour);
  await bad('PUT', one, { state: 'ignored', note: 'a\u0000b' }); // refused (by the gateway or the plugin), never stored
  // A lone UTF-16 surrogate is not text: refused as NUL is, never a 500 (jsonb) nor silently replaced (text).
  t.like(await bad('PUT', one, { state: 'ignored', note: 'a\ud800b' }), { code: 'invalid_character' });
  t.like(await bad('POST', '/api/v4/licensees/', { name: 'Le Monde \udc00', domain: 'lemonde.fr' }), { code: 'invalid_character', errors: [{ field: 'name' }] });
  const gqlSurrogate = await alice.call('POST', '/graphql', { json: { query: 'mutation($n: String) { reviewMatches(state: IGNORED, matchIds: ["' + ids.blog + '"], note: $n) { changed } }', variables: { n: 'x\ud83d' } } });
  t.like(gqlSurrogate.json.errors?.[0]?.extensions, { status_code: 400, apiCode: 'invalid_character' }, gqlSurrogate.text);
  t.is((await alice.call('GET', '/api/v4/licensees/')).json.count, 0, 'nothing stored');
  t.truthy((await bad('PUT', one, { state: 'ignored', note: 'x'.repeat(2001) })).details.note);
  t.truthy((await bad('PUT', one, { state: 'infringing', license_id: '1' })).details.license_id);
  await bad('PUT', one, ['state']);
  await bad('PUT', '/api/v4/matches/abc/review/', { state: 'ignored' }, 404);
  await bad('POST', '/api/v4/matches/review/', { state: 'ignored' });
  await bad('POST', '/api/v4/matches/review/', { state: 'ignored', ids: [ids.blog], filter: {} });
  t.truthy((await bad('POST', '/api/v4/matches/review/', { state: 'ignored', ids: ['1 OR 1=1'] })).details.ids);
  t.truthy((await bad('POST', '/api/v4/matches/review/', { state: 'ignored', filter: { 'site.colour': 'red' } })).details['site.colour']);
  t.truthy((await bad('POST', '/api/v4/matches/review/', { state: 'ignored', filter: { review_state: 'stolen' } })).details.review_state);
  // One id of another account: 404, and none of the batch changed.
  await bad('POST', '/api/v4/matches/review/', { state: 'ignored', ids: [ids.blog, bobMatch] }, 404);
  t.is((await review(ids.blog!)).state, 'new');
  t.is((await review(bobMatch, bob)).state, 'new');
  t.is((await alice.call('GET', '/api/v4/matches/?review_state__in=new,wrong')).status, 400);
});

test.serial('bulk by any filter of the match list; the list, its CSV and the counts filter on the state', async (t) => {
  const bulk = await alice.call('POST', '/api/v4/matches/review/', { json: { state: 'ignored', note: 'Our own sites', filter: { 'site.domain': 'example.com' } } });
  t.is(bulk.status, 200, bulk.text);
  t.deepEqual(bulk.json, { state: 'ignored', matched: 2, changed: 2 });
  t.is((await review(ids.blog!)).state, 'ignored');
  t.is((await review(ids.root!)).state, 'ignored');
  t.is((await review(bobMatch, bob)).state, 'new', "bob's matches are not selected by alice's filter");

  t.is(await count('?review_state=ignored'), 2);
  t.is(await count('?review_state__in=new,unsure'), 2);
  t.is(await count('?!review_state=ignored'), 2);
  t.is(await count('?review_state=ignored&site.domain=example.com&date_created__gte=2026-11-04'), 1);
  t.is(await count('?review_state=ignored', bob), 0);

  const byIds = await alice.call('POST', '/api/v4/matches/review/', { json: { state: 'not_a_match', ids: [ids.bbc, Number(ids.root)] } });
  t.deepEqual(byIds.json, { state: 'not_a_match', matched: 2, changed: 2 });

  const list = await alice.call('GET', '/api/v4/matches/review/?page_size=3');
  t.is(list.status, 200);
  t.is(list.json.count, 4);
  t.deepEqual(list.json.results.map((r: { match_id: string }) => r.match_id), [ids.lemonde, ids.blog, ids.root]);
  t.like(list.json.results[1], { state: 'ignored', note: 'Our own sites', page_url: 'https://blog.example.com/post', site_domain: 'example.com', media_id: String(media.a) });
  const next = await alice.call('GET', new URL(list.json.next).pathname + new URL(list.json.next).search);
  t.deepEqual(next.json.results.map((r: { match_id: string; state: string }) => [r.match_id, r.state]), [[ids.bbc, 'not_a_match']]);
  t.is(next.json.next, null);

  // Aggregations: the groups with at least one match in the state.
  const groups = async (name: string, query: string) => (await alice.call('GET', `/api/v3/aggregations/${name}/${query}`)).json;
  t.is((await groups('group-site-path', '?review_state=not_a_match')).count, 2);
  t.like((await groups('group-site-path', '?review_state=ignored')).results, [{ path: '/alice/press/a.png', site: { domain: 'example.com' } }]);
  t.is((await groups('group-path', '?review_state__in=not_a_match,ignored')).count, 2);
  t.is((await groups('group-path', '?review_state=unsure&media.id=' + media.b)).count, 0);
  t.is((await alice.call('GET', '/api/v3/aggregations/group-path/?review_state=stolen')).status, 400);
  // The CSV exports too: refused before the 200 is started (it was a 200 cut short, the error only logged).
  for (const path of ['/api/v4/matches/', '/api/v3/aggregations/group-path/', '/api/v3/aggregations/group-site-path/', '/api/v4/matches/review/']) {
    for (const query of ['review_state=stolen', 'review_state__in=new,stolen', '!review_state=stolen']) {
      const refused = await alice.call('GET', `${path}?format=csv&${query}`).catch((err: Error) => ({ status: 0, json: { error: err.message } }));
      t.is(refused.status, 400, `${path}?format=csv&${query}`);
      t.like(refused.json, { status_code: 400, code: 'invalid_filter' }, `${path}?format=csv&${query}`);
    }
  }

  const csv = await alice.call('GET', '/api/v4/matches/review/?format=csv&review_state=not_a_match');
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type') ?? '', /text\/csv/);
  const rows: Record<string, string>[] = parse(csv.text, { columns: true });
  t.deepEqual(rows.map((r) => [r.match_id, r.state]).sort(), [[ids.bbc, 'not_a_match'], [ids.root, 'not_a_match']].sort());
  t.is(rows[0]!.automatic, 'false');
});

test.serial('licensees: covered matches become licensed naming the licence, never over a person; changes re-apply (a job for a large account)', async (t) => {
  // alice has 4 matches, more than REVIEW_LICENCE_SYNC_MAX (3): her changes go through the job.
  await alice.call('PUT', `/api/v4/matches/${ids.lemonde}/review/`, { json: { state: 'new' } });
  const lemonde = await alice.call('POST', '/api/v4/licensees/', { json: { name: 'Le Monde', domain: 'https://LeMonde.fr/', reference: 'C-2026-17', valid_from: '2026-01-01', valid_until: '2026-12-31' } });
  t.is(lemonde.status, 201, lemonde.text);
  t.like(lemonde.json, { name: 'Le Monde', domain: 'lemonde.fr', include_subdomains: true, media_path: null, reference: 'C-2026-17', valid_until: '2026-12-31T23:59:59.999Z' });
  // bbc.co.uk: alice decided "not a match" herself; the licence must not override it.
  const bbc = await alice.call('POST', '/api/v4/licensees/', { json: { name: 'BBC', domain: 'bbc.co.uk' } });
  t.is(bbc.status, 201, bbc.text);
  await server.drainJobs();
  const licensed = await review(ids.lemonde!);
  t.like(licensed, { state: 'licensed', license_id: lemonde.json.id, automatic: true, note: 'Licensed to Le Monde (C-2026-17).' });
  t.is((await review(ids.bbc!)).state, 'not_a_match', 'a decision a person made stays');
  const trail = (await alice.call('GET', `/api/v4/matches/${ids.lemonde}/review/history/`)).json.results;
  t.like(trail[trail.length - 1], { state: 'licensed', license_id: lemonde.json.id, actor: { type: 'licensee', account_id: null } });

  // Narrower scope: www.lemonde.fr is not lemonde.fr itself; the match drops back to new.
  const narrowed = await alice.call('PATCH', `/api/v4/licensees/${lemonde.json.id}/`, { json: { include_subdomains: false } });
  t.is(narrowed.status, 200, narrowed.text);
  await server.drainJobs();
  t.like(await review(ids.lemonde!), { state: 'new', license_id: null, automatic: true });
  // A folder and dates: /alice/press covers media a; a validity ending before the sighting does not.
  await alice.call('PATCH', `/api/v4/licensees/${lemonde.json.id}/`, { json: { include_subdomains: true, media_path: '/alice/press/', valid_until: '2026-11-01' } });
  await server.drainJobs();
  t.is((await review(ids.lemonde!)).state, 'new', 'seen on 2026-11-02, after the licence ended');
  await alice.call('PATCH', `/api/v4/licensees/${lemonde.json.id}/`, { json: { valid_until: null } });
  await server.drainJobs();
  t.is((await review(ids.lemonde!)).state, 'licensed');
  t.is(await count(`?review_license_id=${lemonde.json.id}`), 1);

  // A new match on a licensee's site is licensed on match.created (through the outbox).
  const later = await sight(alice.id, media.a!, 'https://abonnes.lemonde.fr/x', day(10));
  const auto = await eventually('the new match licensed', async () => {
    const r = await review(later);
    return r.state === 'licensed' && r;
  });
  t.is(auto.license_id, lemonde.json.id);
  const outOfScope = await sight(alice.id, media.b!, 'https://www.lemonde.fr/other', day(10));
  await server.drainJobs();
  t.is((await review(outOfScope)).state, 'new', 'media b is outside /alice/press');

  // Removing the licence releases what it licensed.
  t.is((await alice.call('DELETE', `/api/v4/licensees/${lemonde.json.id}/`)).status, 204);
  await server.drainJobs();
  t.is((await review(ids.lemonde!)).state, 'new');
  t.is((await review(later)).state, 'new');

  // bob (one match, under the threshold): his licence applies within the request.
  const bobs = await bob.call('POST', '/api/v4/licensees/', { json: { name: 'LM', domain: 'lemonde.fr', media_id: String(media.bob) } });
  t.is(bobs.status, 201, bobs.text);
  t.is((await review(bobMatch, bob)).state, 'licensed');
  // Isolation and bad input.
  t.is((await bob.call('GET', `/api/v4/licensees/${bbc.json.id}/`)).status, 404);
  t.is((await bob.call('DELETE', `/api/v4/licensees/${bbc.json.id}/`)).status, 404);
  t.deepEqual((await bob.call('GET', '/api/v4/licensees/')).json.results.map((l: { id: string }) => l.id), [bobs.json.id]);
  const invalid = await alice.call('POST', '/api/v4/licensees/', { json: { name: '', domain: '10.0.0.1', valid_from: '2026-05-01', valid_until: '2026-04-01', media_id: String(media.bob), extra: 1 } });
  t.is(invalid.status, 400);
  t.deepEqual(Object.keys(invalid.json.details).sort(), ['domain', 'extra', 'name', 'valid_until']);
  // Days a calendar does not have are refused, not rolled over (2026-02-30 is not 2026-03-02).
  const noSuchDay = await alice.call('POST', '/api/v4/licensees/', { json: { name: 'X', domain: 'x.com', valid_from: '2026-02-30', valid_until: '2026-04-31T12:00:00Z' } });
  t.is(noSuchDay.status, 400, noSuchDay.text);
  t.deepEqual(Object.keys(noSuchDay.json.details).sort(), ['valid_from', 'valid_until']);
  const foreignMedia = await alice.call('POST', '/api/v4/licensees/', { json: { name: 'X', domain: 'x.com', media_id: String(media.bob) } });
  t.is(foreignMedia.status, 400, "another account's media");
  t.truthy(foreignMedia.json.details.media_id);
  const licCsv = await alice.call('GET', '/api/v4/licensees/?format=csv');
  const licRows: Record<string, string>[] = parse(licCsv.text, { columns: true });
  t.deepEqual(licRows.map((r) => [r.name, r.domain, r.include_subdomains]), [['BBC', 'bbc.co.uk', 'true']]);
});

test.serial('GraphQL, match.reviewed to a webhook, and the digest counts', async (t) => {
  const hook = await receiver();
  t.teardown(() => hook.server.close());
  const endpoint = await alice.call('POST', '/api/v4/account/webhooks/', { json: { url: hook.url, events: ['match.reviewed'] } });
  t.is(endpoint.status, 201, endpoint.text);

  const gql = async (account: TestAccount, query: string, variables: Record<string, unknown> = {}) =>
    (await account.call('POST', '/graphql', { json: { query, variables } })).json;
  const mutation = await gql(alice, 'mutation($f: [MatchFilterParam!]) { reviewMatches(state: INFRINGING, filter: $f, note: "bulk") { state matched changed } }', {
    f: [{ name: 'site.domain', value: 'lemonde.fr' }],
  });
  t.deepEqual(mutation.data?.reviewMatches, { state: 'INFRINGING', matched: 3, changed: 3 }, JSON.stringify(mutation));
  const read = await gql(alice, 'query($ids: [ID!]!, $id: ID!) { matchReviews(matchIds: $ids) { matchId state note automatic } matchReviewHistory(matchId: $id) { state previousState actor { type username } } }', {
    ids: [ids.lemonde, bobMatch],
    id: ids.lemonde,
  });
  t.deepEqual(read.data?.matchReviews, [{ matchId: ids.lemonde, state: 'INFRINGING', note: 'bulk', automatic: false }], 'bob\'s id left out');
  t.like(read.data?.matchReviewHistory.at(-1), { state: 'INFRINGING', previousState: 'NEW', actor: { type: 'account', username: 'alice' } });
  const listed = await gql(alice, '{ matchReviewList(filter: [{ name: "review_state", value: "infringing" }], pageSize: 2) { count next results { matchId state } } }');
  t.is(listed.data?.matchReviewList.count, 3, JSON.stringify(listed));
  t.is(listed.data?.matchReviewList.results.length, 2);
  t.is(listed.data?.matchReviewList.next, listed.data?.matchReviewList.results[1].matchId);
  // Each item identifies its match as REST's list does (page, image, site, media).
  const withRefs = await gql(alice, '{ matchReviewList(filter: [{ name: "review_state", value: "infringing" }]) { results { matchId pageUrl imageUrl siteDomain mediaId } } }');
  const restList = await alice.call('GET', '/api/v4/matches/review/?review_state=infringing');
  t.deepEqual(
    withRefs.data?.matchReviewList.results,
    restList.json.results.map((r: Record<string, string>) => ({ matchId: r.match_id, pageUrl: r.page_url, imageUrl: r.image_url, siteDomain: r.site_domain, mediaId: r.media_id })),
  );
  t.truthy(withRefs.data?.matchReviewList.results[0].pageUrl);
  // The typed Match object carries its review; the match list filters on it (MatchFilter.reviewState).
  const typed = await gql(alice, '{ matches(filter: { reviewState: { in: ["infringing", "ignored"] } }) { count results { id review { state note automatic changedAt } } } }');
  t.is(typed.data?.matches.count, 4, JSON.stringify(typed));
  t.deepEqual(typed.data?.matches.results.map((m: { review: { state: string } }) => m.review.state).sort(), ['IGNORED', 'INFRINGING', 'INFRINGING', 'INFRINGING']);
  const fresh = await gql(bob, '{ matches { results { id review { state changedAt } } } }');
  t.deepEqual(fresh.data?.matches.results, [{ id: bobMatch, review: { state: 'LICENSED', changedAt: '2026-11-20T09:00:00.000Z' } }]);
  const denied = await gql(bob, `{ matchReviewHistory(matchId: "${ids.lemonde}") { state } }`);
  t.is(denied.errors?.[0]?.extensions?.code, 'NOT_FOUND');
  const lic = await gql(alice, 'mutation { createLicensee(input: { name: "Agence", domain: "agence.example", validUntil: "bad" }) { id } }');
  t.is(lic.errors?.[0]?.extensions?.status_code, 400);
  const lics = await gql(alice, '{ licensees { count results { name domain includeSubdomains } } }');
  t.deepEqual(lics.data?.licensees, { count: 1, results: [{ name: 'BBC', domain: 'bbc.co.uk', includeSubdomains: true }] });

  const events = await eventually('three match.reviewed deliveries', () => hook.bodies.length >= 3 && hook.bodies);
  t.true(events.every((e) => e.type === 'match.reviewed'));
  t.like(events.find((e) => e.data.id === ids.lemonde)?.data, { state: 'infringing', previous_state: 'new', note: 'bulk', actor: { type: 'account', account_id: alice.id } });

  // A digest goes out when something new was found in the period: one match seen now.
  await alice.call('POST', '/api/v4/account/settings/', { json: { lang: 'en', notifications: { notify_match_site_daily: true } } });
  await sight(alice.id, media.b!, 'https://fresh.example.org/p', server.clock.now());
  await server.drainJobs();
  server.clock.advance(3_600_000);
  t.is(await server.get(NotificationService).digests('daily'), 1);
  const digest = (await server.get(NotificationService).outbox(20)).find((m) => m.accountId === alice.id && m.reason === 'digest_daily');
  t.regex(digest?.body ?? '', /Review of your matches\n- to review \(new\): 1\n- infringing: 3\n- not a match: 2\n- ignored: 1\n/);
  t.regex(digest!.body, /Reviewed in this period: \d+ changes/);

  // Account deletion: the hooks (the account plugin runs them) take bob's licensees and reviews, nothing of alice's.
  await server.get<AccountLifecycle>(TOKENS.AccountLifecycle).accountDeleted(bob.id);
  t.is((await bob.call('GET', '/api/v4/licensees/')).json.count, 0);
  t.is((await alice.call('GET', '/api/v4/licensees/')).json.count, 1);
  t.is((await review(ids.lemonde!)).state, 'infringing');
});
