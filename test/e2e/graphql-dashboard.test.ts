import test from 'ava';
import sharp from 'sharp';
import type { Sighting } from '@filigrane/core';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';

// Issue 23 item 5 through real HTTP: a histogram field instead of one alias per day, bulk edits by
// ids or filter (matches, aggregation objects), tag add/remove that keep concurrent edits.

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;
const ids: string[] = [];

const at = (iso: string) => new Date(iso);

test.before(async () => {
  server = await startTestServer({ plugins: ['matches', 'aggregations'], config: { rateLimit: { perSecond: 100_000, perDay: 1_000_000 } } });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2255aa' } }).png().toBuffer();
  const put = await alice.call('PUT', '/api/v4/media/alice/blue.png', { json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (put.status !== 201) throw new Error(put.text);
  const mediaId = Number(new URL(put.json.thumbnail).pathname.split('/')[4]);
  const recorder = server.get(MatchRecorder);
  const sight = async (s: Partial<Sighting>, watermarked: boolean) => {
    const r = await recorder.record({ sighting: { accountId: alice.id, source: 'crawler', kind: 'web', image: {}, ...s } as Sighting, mediaId, watermarked, exclusive: null, query: { width: 10, height: 10, format: 'png' } });
    ids.push(String(r.id));
  };
  // Four days of May 2026, two sites; the last one is late on 3 May in UTC but 4 May in Paris.
  await sight({ imageUrl: 'https://www.lemonde.fr/1.jpg', page: { url: 'https://www.lemonde.fr/a' }, seenAt: at('2026-05-01T10:00:00Z') }, true);
  await sight({ imageUrl: 'https://www.lemonde.fr/2.jpg', page: { url: 'https://www.lemonde.fr/b' }, seenAt: at('2026-05-01T11:00:00Z') }, false);
  await sight({ imageUrl: 'https://news.bbc.co.uk/3.jpg', page: { url: 'https://news.bbc.co.uk/c' }, seenAt: at('2026-05-03T09:00:00Z') }, true);
  await sight({ imageUrl: 'https://news.bbc.co.uk/4.jpg', page: { url: 'https://news.bbc.co.uk/d' }, seenAt: at('2026-05-03T22:30:00Z') }, false);
});
test.after.always(async () => server?.close());

const gql = (account: TestAccount, query: string, variables?: unknown) => account.call('POST', '/graphql', { json: { query, variables } });
const data = async (account: TestAccount, query: string, variables?: unknown) => {
  const res = await gql(account, query, variables);
  if (res.json?.errors) throw new Error(JSON.stringify(res.json.errors));
  return res.json.data;
};

test.serial('a per-day chart is one field: zero days filled, the filter and the time zone honoured', async (t) => {
  const h = (await data(alice, `{ matchHistogram(interval: DAY, from: "2026-05-01", to: "2026-05-05") { total otherCount timeZone buckets { start end count } } }`)).matchHistogram;
  t.is(h.total, 4);
  t.is(h.timeZone, 'UTC');
  t.deepEqual(h.buckets.map((b: { count: number }) => b.count), [2, 0, 2, 0]);
  t.is(h.buckets[1].start, '2026-05-02T00:00:00.000Z');
  t.is(h.buckets[1].end, '2026-05-03T00:00:00.000Z');

  const paris = (await data(alice, `{ matchHistogram(interval: DAY, timeZone: "Europe/Paris", from: "2026-05-01", to: "2026-05-05") { buckets { start count } } }`)).matchHistogram;
  t.deepEqual(paris.buckets.map((b: { count: number }) => b.count), [2, 0, 1, 1], 'the 22:30 UTC match is on 4 May in Paris');
  t.is(paris.buckets[0].start, '2026-04-30T22:00:00.000Z', 'a Paris day starts at 22:00 UTC in May');

  const filtered = (await data(alice, `{ matchHistogram(interval: DAY, filter: { watermarked: { equals: true } }) { total buckets { count } } }`)).matchHistogram;
  t.is(filtered.total, 2);
  t.deepEqual(filtered.buckets.map((b: { count: number }) => b.count), [1, 0, 1], 'from the first to the last match when no range is given');

  const bySite = (await data(alice, `{ matchHistogram(groupBy: SITE) { buckets { key label count } } }`)).matchHistogram;
  t.deepEqual(bySite.buckets.map((b: { label: string; count: number }) => [b.label, b.count]).sort(), [['bbc.co.uk', 2], ['lemonde.fr', 2]]);
  const stacked = (await data(alice, `{ matchHistogram(interval: WEEK, groupBy: WATERMARKED) { buckets { start key count } } }`)).matchHistogram;
  t.deepEqual(stacked.buckets.map((b: { key: string; count: number }) => [b.key, b.count]).sort(), [['false', 2], ['true', 2]]);
  t.is(stacked.buckets[0].start, '2026-04-27T00:00:00.000Z', 'weeks start on Monday');
  const bySource = (await data(alice, `{ matchHistogram(groupBy: SOURCE, interval: MONTH) { buckets { key count } } }`)).matchHistogram;
  t.deepEqual(bySource.buckets, [{ key: 'crawler', count: 4 }]);

  t.is((await data(bob, '{ matchHistogram(groupBy: SITE) { total } }')).matchHistogram.total, 0, 'another account counts its own');
  const bad = await gql(alice, '{ matchHistogram(interval: DAY, timeZone: "Mars/Olympus") { total } }');
  t.regex(JSON.stringify(bad.json.errors), /Unknown time zone/);
  const rest = await alice.call('GET', '/api/v4/matches/histogram/?interval=day&time_zone=Europe/Paris&site.domain=bbc.co.uk');
  t.is(rest.status, 200, rest.text);
  t.deepEqual(rest.json.buckets.map((b: { count: number }) => b.count), [1, 1]);
});

test.serial('before/after: a 30-day chart by aliases (capped at 30) against one histogram field', async (t) => {
  const days = Array.from({ length: 31 }, (_, i) => new Date(Date.UTC(2026, 3, 5 + i)).toISOString().slice(0, 10));
  const alias = (from: string, to: string, i: number) => `d${i}: matches(filter: { dateCreated: { gte: "${from}", lt: "${to}" } }, pageSize: 1) { count }`;
  const aliases = days.slice(0, 30).map((d, i) => alias(d, days[i + 1]!, i)).join('\n');
  const refused = await gql(alice, `{ ${aliases} extra: matches(pageSize: 1) { count } }`);
  t.is(refused.status, 400, 'the 31st alias is refused: before, a 30-day chart took two requests');
  let t0 = performance.now();
  const byAliases = await gql(alice, `{ ${aliases} }`);
  const aliasMs = performance.now() - t0;
  t.is(byAliases.status, 200, byAliases.text);
  t0 = performance.now();
  const one = await data(alice, `{ matchHistogram(interval: DAY, from: "${days[0]}", to: "${days[30]}") { buckets { start count } } }`);
  const fieldMs = performance.now() - t0;
  t.is(one.matchHistogram.buckets.length, 30);
  const sumAliases = Object.values(byAliases.json.data as Record<string, { count: number }>).reduce((s, v) => s + v.count, 0);
  t.is(one.matchHistogram.buckets.reduce((s: number, b: { count: number }) => s + b.count, 0), sumAliases, 'the same counts');
  t.log(`30-day chart: 30 aliased fields ${aliasMs.toFixed(0)} ms (31 refused); one histogram field ${fieldMs.toFixed(0)} ms`);
});

test.serial('bulk edits by ids or by filter, tag add/remove without losing concurrent edits', async (t) => {
  const byFilter = (await data(alice, `mutation { updateMatches(filter: { siteDomain: { equals: "lemonde.fr" } }, addTags: ["press-fr"], export: false) { matched updated refused ids } }`)).updateMatches;
  t.is(byFilter.matched, 2);
  t.is(byFilter.updated, 2);
  t.deepEqual([...byFilter.ids].sort(), [ids[0], ids[1]].sort());
  const listed = await alice.call('GET', '/api/v4/matches/?tags=press-fr');
  t.is(listed.json.count, 2);
  t.true(listed.json.results.every((m: { export: boolean }) => m.export === false));

  const byIds = (await data(alice, `mutation($ids: [ID!]) { updateMatches(ids: $ids, addTags: ["b"], removeTags: ["press-fr"]) { matched updated } }`, { ids: [ids[0], ids[2]] })).updateMatches;
  t.deepEqual(byIds, { matched: 2, updated: 2 });
  t.deepEqual((await alice.call('GET', `/api/v4/matches/${ids[0]}/`)).json.tags, ['b']);
  const bobs = (await data(bob, `mutation($ids: [ID!]) { updateMatches(ids: $ids, addTags: ["x"]) { matched updated } }`, { ids })).updateMatches;
  t.deepEqual(bobs, { matched: 0, updated: 0 }, 'another account\'s ids select nothing');

  // Twenty clients each add their own tag to one match at once: every tag is kept.
  const target = ids[3]!;
  await Promise.all(Array.from({ length: 20 }, (_, i) => data(alice, `mutation { addMatchTags(id: "${target}", tags: ["t${i}"]) { tags } }`)));
  const tags: string[] = (await alice.call('GET', `/api/v4/matches/${target}/`)).json.tags;
  t.deepEqual([...tags].sort(), Array.from({ length: 20 }, (_, i) => `t${i}`).sort());
  const removed = (await data(alice, `mutation { removeMatchTags(id: "${target}", tags: ["t3", "nope"]) { tags } }`)).removeMatchTags.tags;
  t.is(removed.length, 19);
  t.false(removed.includes('t3'));

  // REST: one tag in or out, and the bulk PATCH with the listing's filters in the query string.
  const put = await alice.call('PUT', `/api/v4/matches/${target}/tags/urgent/`);
  t.is(put.status, 200, put.text);
  t.true(put.json.tags.includes('urgent'));
  t.is((await alice.call('PUT', `/api/v4/matches/${target}/tags/urgent/`)).json.tags.filter((x: string) => x === 'urgent').length, 1, 'idempotent');
  const del = await alice.call('DELETE', `/api/v4/matches/${target}/tags/urgent/`);
  t.false(del.json.tags.includes('urgent'));
  t.is((await bob.call('PUT', `/api/v4/matches/${target}/tags/x/`)).status, 404);
  const patch = await alice.call('PATCH', '/api/v4/matches/?site.domain=bbc.co.uk', { json: { add_tags: ['uk'] } });
  t.is(patch.status, 200, patch.text);
  t.like(patch.json, { matched: 2, updated: 2, refused: 0 });
  t.is((await alice.call('PATCH', '/api/v4/matches/?nope=1', { json: { add_tags: ['uk'] } })).status, 400);

  // More than 50 tags: refused, counted, the match unchanged.
  const many = Array.from({ length: 40 }, (_, i) => `m${i}`);
  const over = (await data(alice, `mutation($t: [String!]) { updateMatches(ids: ["${target}"], addTags: $t) { matched updated refused } }`, { t: many })).updateMatches;
  t.deepEqual(over, { matched: 1, updated: 0, refused: 1 });
});

test.serial('aggregation objects: bulk tags and export by filter, versions counted', async (t) => {
  const list = (await alice.call('GET', '/api/v3/aggregations/group-site-path/')).json;
  t.is(list.count, 2);
  const res = (await data(alice, `mutation { updateAggregations(name: "group-site-path", filter: { siteDomain: { equals: "lemonde.fr" } }, addTags: ["fr"], export: false) { matched updated ids } }`)).updateAggregations;
  t.like(res, { matched: 1, updated: 1 });
  const obj = (await alice.call('GET', `/api/v3/aggregations/group-site-path/${res.ids[0]}/`)).json;
  t.deepEqual(obj.tags, ['fr']);
  t.is(obj.export, false);
  const before = obj._version;
  await data(alice, `mutation { updateAggregations(name: "group-site-path", ids: ["${res.ids[0]}"], removeTags: ["fr"]) { updated } }`);
  const after = (await alice.call('GET', `/api/v3/aggregations/group-site-path/${res.ids[0]}/`)).json;
  t.deepEqual(after.tags, []);
  t.is(after._version, before + 1);
});
