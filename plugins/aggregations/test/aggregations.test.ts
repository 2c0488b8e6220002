import test from 'ava';
import sharp from 'sharp';
import { parse } from 'csv-parse/sync';
import { csvCell, flattenObject, type Sighting } from '@filigrane/core';
import { AggregationQueryService } from '@filigrane/plugin-aggregations';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestServer } from '@filigrane/testing';

let server: TestServer;
let key: string;
let otherKey: string;
let accountId: number;
const media: Record<string, number> = {};

async function register(k: string, path: string, colour: string): Promise<number> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } }).png().toBuffer();
  const res = await server.call('PUT', `/api/v4/media${path}`, { key: k, json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (res.status !== 201) throw new Error(res.text);
  return Number(new URL(res.json.thumbnail).pathname.split('/')[4]);
}

const day = (d: number, h = 12) => new Date(Date.UTC(2026, 2, d, h));

async function sight(account: number, mediaId: number, s: Partial<Sighting>, watermarked: boolean) {
  const recorder = server.app.container.get(MatchRecorder);
  return recorder.record({
    sighting: { accountId: account, source: 'test', kind: 'web', image: {}, ...s },
    mediaId,
    watermarked,
    exclusive: null,
    query: { width: 640, height: 480, format: 'jpeg' },
  });
}

test.before(async () => {
  server = await startTestServer({ plugins: ['aggregations'], workers: false });
  const account = await server.createAccount('grouper');
  key = account.apiKey;
  accountId = account.id;
  const other = await server.createAccount('outsider');
  otherKey = other.apiKey;
  media.a = await register(key, '/grouper/news/a.png', '#aa2200');
  media.b = await register(key, '/grouper/ads/b.png', '#0022aa');
  media.x = await register(otherKey, '/outsider/x.png', '#22aa00');
  // a: two images on one lemonde page, one on another lemonde page, one on the BBC, one press; b: a blog and a credit.
  await sight(accountId, media.a!, { imageUrl: 'https://www.lemonde.fr/img/1.jpg', page: { url: 'https://www.lemonde.fr/article-1' }, seenAt: day(2), sessionId: 7 }, true);
  await sight(accountId, media.a!, { imageUrl: 'https://www.lemonde.fr/img/1b.jpg', page: { url: 'https://www.lemonde.fr/article-1' }, seenAt: day(3), sessionId: 8 }, false);
  await sight(accountId, media.a!, { imageUrl: 'https://www.lemonde.fr/img/2.jpg', page: { url: 'https://www.lemonde.fr/article-2' }, seenAt: day(4), sessionId: 8 }, true);
  await sight(accountId, media.a!, { imageUrl: 'https://cdn.bbc.co.uk/3.jpg', page: { url: 'https://www.bbc.co.uk/news/3' }, seenAt: day(5) }, false);
  await sight(accountId, media.a!, { kind: 'press', press: { issueName: 'Le Monde', issueDate: '2026-03-06', pageNumber: 3 }, imageUrl: 'https://press.example.org/lm.pdf#p3', seenAt: day(6) }, true);
  await sight(accountId, media.b!, { imageUrl: 'https://blog.example.com/b.png', page: { url: 'https://blog.example.com/post' }, seenAt: day(7), sessionId: 9 }, true);
  await sight(accountId, media.b!, { kind: 'credit', credit: '© Grouper', imageUrl: 'https://shop.example.net/c.jpg', page: { url: 'https://shop.example.net/p' }, seenAt: day(8) }, false);
  await sight(other.id, media.x!, { imageUrl: 'https://www.lemonde.fr/img/x.jpg', page: { url: 'https://www.lemonde.fr/article-1' }, seenAt: day(2) }, true);
});
test.after.always(async () => server?.close());

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const get = (path: string, k = key) => server.call('GET', path, { key: k });
const list = async (name: string, query = '', k = key) => {
  const res = await get(`/api/v3/aggregations/${name}/${query}`, k);
  if (res.status !== 200) throw new Error(`${name}${query}: ${res.status} ${res.text}`);
  return res.json as { count: number; next: string | null; previous: string | null; results: Obj[] };
};
const count = async (name: string, query: string) => (await list(name, query)).count;
const byPath = async (path: string) => (await list('group-path', `?path=${path}`)).results[0]!;

test.serial('the list of aggregations: url and name of each', async (t) => {
  const res = await get('/api/v3/aggregations/');
  t.is(res.status, 200);
  t.deepEqual(res.json.map((a: Obj) => a.name), ['group-path', 'group-site-path', 'group-site-path-pageurl']);
  for (const a of res.json) t.is(a.url, `${server.url}/api/v3/aggregations/${a.name}/`);
  t.is((await get('/api/v3/aggregations/group-nothing/')).status, 404);
  t.is((await get('/api/v4/aggregations/')).status, 404);
});

test.serial('group-path: one object per media with its counts, dates and sessions', async (t) => {
  const page = await list('group-path');
  t.is(page.count, 2);
  t.is(page.results[0]!.path, '/grouper/ads/b.png', 'most recent activity first');
  const a = await byPath('/grouper/news/a.png');
  t.like(a, {
    _version: 0, group: accountId, type: 2, export: true, deleted: false, tags: [], path: '/grouper/news/a.png',
    match_count: 5, watermarked_count: 3, web_count: 4, press_count: 1, credit_count: 0, video_count: 0,
    first_seen: day(2).toISOString(), last_seen: day(6).toISOString(), sessions: [7, 8],
  });
  t.is(typeof a._id, 'string');
  t.like(a.media, { id: String(media.a), type: 'image' });
  t.is(a.url, `${server.url}/api/v3/aggregations/group-path/${a._id}/`);
  const drill = await server.call('GET', a.matches, { key });
  t.is(drill.json.count, 5, 'the matches link lists the group’s matches');
});

test.serial('group-site-path and group-site-path-pageurl', async (t) => {
  t.is(await count('group-site-path', ''), 5, 'a: lemonde.fr, bbc.co.uk, example.org (press); b: example.com, example.net');
  const lm = (await list('group-site-path', `?site.domain=lemonde.fr&media.id=${media.a}`)).results;
  t.is(lm.length, 1);
  t.like(lm[0], { type: 4, match_count: 3, watermarked_count: 2, site: { domain: 'lemonde.fr', suffix: 'fr', country: 'FR', name: 'Lemonde' } });
  const pages = (await list('group-site-path-pageurl', '?site.domain=lemonde.fr')).results;
  t.deepEqual(pages.map((p) => [p.page_url, p.match_count]).sort(), [['https://www.lemonde.fr/article-1', 2], ['https://www.lemonde.fr/article-2', 1]]);
  t.is(pages[0]!.type, 3);
  const press = (await list('group-site-path-pageurl', '?press_count__gt=0')).results;
  t.is(press[0]!.page_url, 'https://press.example.org/lm.pdf#p3', 'a match without a page groups under its image URL');
});

test.serial('a new match shows up in its groups; a repeated sighting updates them; _id is stable', async (t) => {
  const before = await byPath('/grouper/ads/b.png');
  await sight(accountId, media.b!, { imageUrl: 'https://blog.example.com/b2.png', page: { url: 'https://blog.example.com/post' }, seenAt: day(10), sessionId: 11 }, false);
  const after = await byPath('/grouper/ads/b.png');
  t.is(after._id, before._id);
  t.is(after.match_count, before.match_count + 1);
  t.is(after.last_seen, day(10).toISOString());
  t.deepEqual(after.sessions, [9, 11]);
  const pageGroup = (await list('group-site-path-pageurl', '?page_url=https://blog.example.com/post')).results[0]!;
  t.like(pageGroup, { match_count: 2, watermarked_count: 1 });
  // The same image seen again, now with the watermark proved: counted once, watermarked now.
  const again = await sight(accountId, media.b!, { imageUrl: 'https://blog.example.com/b2.png', page: { url: 'https://blog.example.com/post' }, seenAt: day(11), sessionId: 12 }, true);
  t.false(again.created);
  const updated = (await list('group-site-path-pageurl', '?page_url=https://blog.example.com/post')).results[0]!;
  t.like(updated, { _id: pageGroup._id, match_count: 2, watermarked_count: 2, last_seen: day(11).toISOString(), sessions: [9, 11, 12] });
});

test.serial('filters: every operator on the aggregation fields', async (t) => {
  const a = await byPath('/grouper/news/a.png');
  t.is(await count('group-path', `?_id=${a._id}`), 1);
  t.is(await count('group-path', `?!_id=${a._id}`), 1);
  t.is(await count('group-path', `?_id__in=${a._id},999999`), 1);
  // `_id` is a string in the spec: every string operator works on it, and no value is a 400 "integer".
  const ids = (await list('group-path', '')).results.map((r) => String(r._id));
  const prefix = a._id.slice(0, 1);
  t.is(await count('group-path', `?_id__startswith=${prefix}`), ids.filter((id) => id.startsWith(prefix)).length);
  t.is(await count('group-path', `?_id__startswith=${a._id}`), ids.filter((id) => id.startsWith(a._id)).length);
  t.is(await count('group-path', '?_id__startswith=x'), 0);
  t.is(await count('group-path', `?_id__gte=${a._id}&_id__lte=${a._id}`), 1);
  t.is(await count('group-path', '?_id=abc'), 0);
  t.is(await count('group-path', '?_id=123456789012345678901234'), 0);
  t.is(await count('group-path', '?_id__gt=123456789012345678901234'), 0);
  t.is(await count('group-path', '?!_id=abc'), 2);
  t.is(await count('group-path', '?_id__in=abc,x'), 0);
  t.is(await count('group-path', '?path__startswith=/grouper/news/'), 1);
  t.is(await count('group-path', '?path__in=/grouper/news/a.png,/grouper/ads/b.png'), 2);
  t.is(await count('group-path', '?match_count__gt=4'), 1);
  t.is(await count('group-path', '?match_count__gte=3'), 2);
  t.is(await count('group-path', '?match_count>=5'), 1);
  t.is(await count('group-path', '?match_count<=4'), 1);
  t.is(await count('group-path', '?match_count__lt=5'), 1);
  t.is(await count('group-path', '?match_count__lte=5'), 2);
  t.is(await count('group-path', '?watermarked_count=3'), 1);
  t.is(await count('group-path', '?type=2'), 2);
  t.is(await count('group-path', '?type__in=1,0'), 0);
  t.is(await count('group-path', '?first_seen=2026-03-02'), 1, 'a date is the whole day');
  t.is(await count('group-path', '?first_seen__gt=2026-03-02'), 1);
  t.is(await count('group-path', '?last_seen__lte=2026-03-06'), 1);
  t.is(await count('group-path', '?last_seen__gte=2026-03-06T12:00:00Z'), 2);
  t.is(await count('group-path', '?sessions=7'), 1);
  t.is(await count('group-path', '?sessions__isnull=true'), 0);
  t.is(await count('group-site-path', '?site.id__isnull=true'), 0);
  t.is(await count('group-site-path', '?!site.domain=lemonde.fr'), 4);
  t.is(await count('group-site-path', '?site.suffix__in=CO.UK,com'), 2);
  t.is(await count('group-site-path', '?site.country=fr'), 1);
  t.is(await count('group-site-path', '?site.name__startswith=Lem'), 1);
  t.is(await count('group-site-path-pageurl', '?page_url__startswith=https://www.lemonde.fr/'), 2);
  t.is(await count('group-site-path-pageurl', '?credit_count=1&web_count=0'), 1);
  t.is(await count('group-path', '?created__lte=2026-03-01'), 0);
  t.is(await count('group-path', '?updated__isnull=false&export=true'), 2);
});

test.serial('filters: mistakes are 400 naming the parameter', async (t) => {
  const cases: [string, string][] = [
    ['?colour=red', 'colour'],
    ['?_version=1', '_version'],
    ['?deleted=false', 'deleted'],
    ['?match_count=many', 'match_count'],
    ['?last_seen__gt=yesterday', 'last_seen__gt'],
    ['?export=maybe', 'export'],
    ['?type=7', 'type'],
    ['?match_count__startswith=1', 'match_count__startswith'],
    ['?tags__gt=a', 'tags__gt'],
    ['?site.domain=lemonde.fr', 'site.domain'],
    ['?first_seen=2026-03-02&first_seen__lt=2026-04-01', 'first_seen'],
  ];
  for (const [query, param] of cases) {
    const res = await get(`/api/v3/aggregations/group-path/${query}`);
    t.is(res.status, 400, query);
    t.is(res.json.code, 'invalid_filter', query);
    t.truthy(res.json.details[param], `${query}: ${res.text}`);
  }
});

test.serial('pagination envelope with count, page links keeping the filters', async (t) => {
  const p1 = await list('group-site-path', '?page_size=2&match_count__gte=1');
  t.is(p1.results.length, 2);
  t.is(p1.count, 5);
  t.is(p1.previous, null);
  t.regex(p1.next!, /page=2/);
  t.regex(p1.next!, /match_count__gte=1/);
  const p3 = (await server.call('GET', (await server.call('GET', p1.next!, { key })).json.next, { key })).json;
  t.is(p3.next, null);
  t.is(p3.results.length, 1);
});

test.serial('PATCH export and tags counts in _version; edits survive new matches', async (t) => {
  const a = await byPath('/grouper/news/a.png');
  const url = `/api/v3/aggregations/group-path/${a._id}/`;
  const res = await server.call('PATCH', url, { key, json: { tags: ['legal', 'urgent', 'legal'], export: false } });
  t.is(res.status, 200);
  t.like(res.json, { _id: a._id, _version: 1, tags: ['legal', 'urgent'], export: false });
  t.true(new Date(res.json.updated) >= new Date(a.updated));
  t.is((await server.call('PATCH', url, { key, json: { tags: ['legal'] } })).json._version, 2);
  t.is((await server.call('PATCH', url, { key, json: { match_count: 0 } })).status, 400);
  t.is((await server.call('PATCH', url, { key, json: { tags: 'legal' } })).status, 400);
  t.is((await server.call('PATCH', url, { key, json: { export: 'no' } })).status, 400);
  t.is((await server.call('PATCH', '/api/v3/aggregations/group-path/999999/', { key, json: { export: true } })).status, 404);
  await sight(accountId, media.a!, { imageUrl: 'https://www.lemonde.fr/img/9.jpg', page: { url: 'https://www.lemonde.fr/article-9' }, seenAt: day(12) }, false);
  const now = (await get(url)).json;
  t.like(now, { _id: a._id, _version: 2, tags: ['legal'], export: false, match_count: 6 });
  t.is(await count('group-path', '?tags=legal'), 1);
  t.is(await count('group-path', '?!tags=legal'), 1);
  t.is(await count('group-path', '?tags__isnull=true'), 1);
  t.is(await count('group-path', '?export=false'), 1);
});

test.serial('field access: GET, PUT {content} and DELETE, list items as tags.<index>', async (t) => {
  const b = await byPath('/grouper/ads/b.png');
  const base = `/api/v3/aggregations/group-path/${b._id}`;
  t.deepEqual((await get(`${base}/tags/`)).json, []);
  t.is((await get(`${base}/match_count/`)).json, b.match_count);
  t.is((await get(`${base}/path/`)).json, '/grouper/ads/b.png');
  t.is((await get(`${base}/media.id/`)).json, String(media.b));
  let res = await server.call('PUT', `${base}/tags/`, { key, json: { content: ['one', 'two'] } });
  t.is(res.status, 200);
  t.like(res.json, { tags: ['one', 'two'], _version: 1 });
  t.is((await get(`${base}/tags.1/`)).json, 'two');
  res = await server.call('PUT', `${base}/tags.0/`, { key, json: { content: 'first' } });
  t.like(res.json, { tags: ['first', 'two'], _version: 2 });
  res = await server.call('PUT', `${base}/tags.2/`, { key, json: { content: 'third' } });
  t.deepEqual(res.json.tags, ['first', 'two', 'third'], 'the index after the last appends');
  t.is((await server.call('PUT', `${base}/tags.7/`, { key, json: { content: 'x' } })).status, 404);
  t.is((await server.call('DELETE', `${base}/tags.1/`, { key })).status, 204);
  t.deepEqual((await get(`${base}/tags/`)).json, ['first', 'third']);
  t.is((await get(`${base}/_version/`)).json, 4);
  t.is((await get(`${base}/tags.5/`)).status, 404);
  t.is((await server.call('DELETE', `${base}/tags.5/`, { key })).status, 404);
  res = await server.call('PUT', `${base}/export/`, { key, json: { content: false } });
  t.false(res.json.export);
  t.is((await server.call('DELETE', `${base}/export/`, { key })).status, 204);
  t.true((await get(`${base}/export/`)).json, 'DELETE export restores the default (true)');
  t.is((await server.call('DELETE', `${base}/tags/`, { key })).status, 204);
  t.deepEqual((await get(`${base}/tags/`)).json, []);
  t.is((await get(`${base}/_version/`)).json, 7);
  // Mistakes: read-only fields, unknown fields, bad content.
  t.is((await server.call('PUT', `${base}/match_count/`, { key, json: { content: 3 } })).json.code, 'invalid');
  t.is((await server.call('PUT', `${base}/match_count/`, { key, json: { content: 3 } })).status, 400);
  t.is((await server.call('DELETE', `${base}/path/`, { key })).status, 400);
  t.is((await get(`${base}/colour/`)).status, 404);
  t.is((await server.call('PUT', `${base}/colour/`, { key, json: { content: 1 } })).status, 404);
  t.is((await server.call('PUT', `${base}/tags/`, { key, json: { value: ['x'] } })).status, 400);
  t.is((await server.call('PUT', `${base}/tags.0/`, { key, json: { content: 5 } })).status, 400);
  t.is((await server.call('PUT', `${base}/export/`, { key, json: { content: 'yes' } })).status, 400);
  t.is((await get(`${base}/_version/`)).json, 7, 'refused edits change nothing');
});

test.serial('CSV: every exportable object, flattened, injection-safe, with a file name', async (t) => {
  const b = await byPath('/grouper/ads/b.png');
  await server.call('PATCH', `/api/v3/aggregations/group-path/${b._id}/`, { key, json: { tags: ['=HYPERLINK("http://evil")', 'plain, with comma'] } });
  const res = await get('/api/v3/aggregations/group-path/?format=csv');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type')!, /^text\/csv/);
  t.regex(res.headers.get('content-disposition')!, /^attachment; filename="group-path-\d{4}-\d{2}-\d{2}\.csv"$/);
  const rows = parse(res.text, { columns: true }) as Record<string, string>[];
  t.is(rows.length, 1, 'a (export false) is left out');
  const row = rows[0]!;
  t.like(row, { _id: b._id, path: '/grouper/ads/b.png', 'media.id': String(media.b), 'media.type': 'image', deleted: 'false', export: 'true', type: '2' });
  t.is(row.match_count, String(b.match_count));
  t.is(row.tags, `'=HYPERLINK("http://evil"),plain, with comma`, 'a formula is neutralised, the list is one cell');
  t.false('media' in row);
  const sites = parse((await get('/api/v3/aggregations/group-site-path/?format=csv&site.domain=lemonde.fr')).text, { columns: true }) as Record<string, string>[];
  t.is(sites.length, 1, 'each aggregation has its own export flag: a is left out of group-path only');
  t.is(sites[0]!['site.domain'], 'lemonde.fr');
});

test.serial('CSV honours the filters and the export flag of each aggregation', async (t) => {
  const all = parse((await get('/api/v3/aggregations/group-site-path-pageurl/?format=csv')).text, { columns: true }) as Record<string, string>[];
  const count = (await list('group-site-path-pageurl', '?export=true')).count;
  t.is(all.length, count);
  t.true(all.every((r) => r['site.domain'] !== undefined && r.page_url !== undefined));
  const filtered = parse((await get('/api/v3/aggregations/group-site-path-pageurl/?format=csv&site.domain=lemonde.fr')).text, { columns: true }) as Record<string, string>[];
  t.deepEqual(filtered.map((r) => r.page_url).sort(), ['https://www.lemonde.fr/article-1', 'https://www.lemonde.fr/article-2', 'https://www.lemonde.fr/article-9']);
  t.is((await get('/api/v3/aggregations/group-path/?format=xml')).status, 406);
  t.is((await get('/api/v3/aggregations/group-path/?format=csv&colour=red')).status, 400);
});

test.serial('CSV rows are the JSON objects flattened, cell for cell, in every aggregation', async (t) => {
  for (const name of ['group-path', 'group-site-path', 'group-site-path-pageurl']) {
    const json = (await list(name, '?export=true')).results;
    const text = (await get(`/api/v3/aggregations/${name}/?format=csv`)).text;
    const csv = parse(text, { columns: true }) as Record<string, string>[];
    t.true(json.length > 0, name);
    t.is(csv.length, json.length, name);
    const columns = text.split('\r\n')[0]!.split(',');
    for (const [i, obj] of json.entries()) {
      const flat = flattenObject(obj);
      const expected = Object.fromEntries(columns.map((c) => [c, csvCell(flat[c]).replace(/^"(.*)"$/s, '$1').replace(/""/g, '"')]));
      t.deepEqual(csv[i], expected, `${name} ${obj._id}`);
    }
  }
});

test.serial('count is exact up to the limit, then estimated; next and previous stay exact', async (t) => {
  const service = server.app.container.get(AggregationQueryService);
  const exact = await list('group-site-path-pageurl');
  t.true(exact.count > 3);
  const saved = service.exactCountLimit;
  service.exactCountLimit = 2;
  try {
    const first = await list('group-site-path-pageurl', '?page_size=2');
    t.true(first.count >= 3, 'above the limit: at least limit + 1');
    t.deepEqual(first.results.map((r) => r._id), exact.results.slice(0, 2).map((r) => r._id));
    t.truthy(first.next);
    const lastPage = Math.ceil(exact.count / 2);
    const last = await list('group-site-path-pageurl', `?page_size=2&page=${lastPage}`);
    t.is(last.next, null, 'the last page has no next, whatever the estimate');
    t.truthy(last.previous);
    t.deepEqual(last.results.map((r) => r._id), exact.results.slice((lastPage - 1) * 2).map((r) => r._id));
    t.is((await list('group-path', '?path=/grouper/news/a.png')).count, 1, 'small results stay exact');
  } finally {
    service.exactCountLimit = saved;
  }
});

test.serial('account isolation on every route', async (t) => {
  const mine = await byPath('/grouper/news/a.png');
  const theirs = (await list('group-path', '', otherKey)).results;
  t.is(theirs.length, 1);
  t.is(theirs[0]!.path, '/outsider/x.png');
  t.is((await list('group-site-path', '?site.domain=lemonde.fr', otherKey)).count, 1);
  const base = `/api/v3/aggregations/group-path/${mine._id}`;
  t.is((await get(`${base}/`, otherKey)).status, 404);
  t.is((await server.call('PATCH', `${base}/`, { key: otherKey, json: { tags: ['x'] } })).status, 404);
  t.is((await get(`${base}/tags/`, otherKey)).status, 404);
  t.is((await server.call('PUT', `${base}/tags/`, { key: otherKey, json: { content: ['x'] } })).status, 404);
  t.is((await server.call('DELETE', `${base}/tags/`, { key: otherKey })).status, 404);
  const csv = (await get('/api/v3/aggregations/group-path/?format=csv', otherKey)).text;
  t.false(csv.includes('/grouper/'));
  t.is((await list('group-path', `?group=${accountId}`, otherKey)).count, 0);
  t.deepEqual((await get(`${base}/`)).json.tags, ['legal'], 'nothing changed');
  t.is((await get('/api/v3/aggregations/group-path/')).status, 200);
  t.is((await server.call('GET', '/api/v3/aggregations/group-path/')).status, 401);
});

test.serial('GraphQL: the same filters and the PATCH mutation', async (t) => {
  const q = await server.call('POST', '/graphql', {
    key,
    json: { query: 'query($f: AggregationFilter) { aggregations(name: "group-site-path", filter: $f, pageSize: 10) { count results { id matchCount site { domain } } } }', variables: { f: { siteDomain: { equals: 'lemonde.fr' }, matchCount: { gte: 2 } } } },
  });
  t.is(q.json.data.aggregations.count, 1, JSON.stringify(q.json));
  t.is(q.json.data.aggregations.results[0].site.domain, 'lemonde.fr');
  const id = q.json.data.aggregations.results[0].id;
  const bad = await server.call('POST', '/graphql', { key, json: { query: '{ aggregations(name: "group-path", filter: {colour: {equals: "red"}}) { count } }' } });
  t.is(bad.json.errors[0].extensions.code, 'GRAPHQL_VALIDATION_FAILED');
  // A site filter on the group without sites: REST's 400 invalid_filter, as BAD_USER_INPUT with its reason.
  const siteless = await server.call('POST', '/graphql', { key, json: { query: '{ aggregations(name: "group-path", filter: {siteDomain: {equals: "x.fr"}}) { count } }' } });
  t.like(siteless.json.errors[0].extensions, { code: 'BAD_USER_INPUT', apiCode: 'invalid_filter', status_code: 400 });
  t.regex(siteless.json.errors[0].message, /site\.domain/);
  const m = await server.call('POST', '/graphql', { key, json: { query: `mutation { updateAggregation(name: "group-site-path", id: "${id}", tags: ["gql"]) { id tags version } }` } });
  t.like(m.json.data.updateAggregation, { id, tags: ['gql'], version: 1 });
  const other = await server.call('POST', '/graphql', { key: otherKey, json: { query: `{ aggregation(name: "group-site-path", id: "${id}") { id } }` } });
  t.is(other.json.data.aggregation, null);
  t.is(other.json.errors[0].extensions.code, 'NOT_FOUND', 'another account\'s object is not found, as REST answers 404');
});

test.serial('credit lines found without a registered media: a group with no media', async (t) => {
  const recorder = server.app.container.get(MatchRecorder);
  await recorder.record({
    sighting: { accountId, source: 'test', kind: 'web', image: {}, credit: '© Grouper', imageUrl: 'https://www.lemonde.fr/img/credit.jpg', page: { url: 'https://www.lemonde.fr/article-7' }, seenAt: day(13) },
    mediaId: null,
    kind: 'credit',
    watermarked: false,
    exclusive: null,
    query: { width: 640, height: 480, format: 'jpeg' },
  });
  const none = (await list('group-path', '?media.id__isnull=true')).results;
  t.is(none.length, 1);
  t.like(none[0], { path: null, media: null, type: 0, match_count: 1, credit_count: 1, web_count: 0 });
  t.is(none[0]!.matches, `${server.url}/api/v3/matches/credit/`);
  t.is((await list('group-site-path', '?path__isnull=true')).results[0]!.site.domain, 'lemonde.fr');
  t.is(await count('group-site-path-pageurl', '?page_url=https://www.lemonde.fr/article-7'), 1);
  const csv = parse((await get('/api/v3/aggregations/group-path/?format=csv&media.id__isnull=true')).text, { columns: true }) as Record<string, string>[];
  t.like(csv[0], { path: '', 'media.id': '', credit_count: '1' });
});

test.serial('the same image on another page is another match: the new page gets a group, the old one keeps its own', async (t) => {
  // Matches never move between groups (the matches row contract, MATCH_ROW_CONTRACT): a page change
  // reaches the groups as a new sighting through the recorder, the public way in.
  const a = await byPath('/grouper/news/a.png');
  const old = (await list('group-site-path-pageurl', '?page_url=https://www.lemonde.fr/article-2')).results[0]!;
  const seen = await sight(accountId, media.a!, { imageUrl: 'https://www.lemonde.fr/img/2.jpg', page: { url: 'https://www.lemonde.fr/article-2b' }, seenAt: day(14), sessionId: 8 }, true);
  t.true(seen.created);
  const moved = (await list('group-site-path-pageurl', '?page_url=https://www.lemonde.fr/article-2b')).results;
  t.is(moved.length, 1);
  t.like(moved[0], { match_count: 1, watermarked_count: 1, first_seen: day(14).toISOString(), sessions: [8] });
  t.like((await list('group-site-path-pageurl', '?page_url=https://www.lemonde.fr/article-2')).results[0], { _id: old._id, _version: old._version, match_count: 1 });
  const after = await byPath('/grouper/news/a.png');
  t.like(after, { _id: a._id, match_count: a.match_count + 1, watermarked_count: a.watermarked_count + 1, _version: a._version, tags: a.tags });
});

test.serial('deleting a media removes its groups', async (t) => {
  await server.call('DELETE', '/api/v4/media/grouper/ads/b.png', { key });
  t.is(await count('group-path', '?media.id__isnull=false'), 1);
  t.is(await count('group-site-path', `?media.id=${media.b}`), 0);
  t.is(await count('group-site-path-pageurl', `?media.id=${media.b}`), 0);
});

test('a site without a public suffix (an IP address) has suffix null, as in the matches', async (t) => {
  const ip = await server.createAccount('ipsite');
  const mediaId = await register(ip.apiKey, '/ipsite/p.png', '#123456');
  await sight(ip.id, mediaId, { imageUrl: 'http://203.0.113.7/p.jpg', page: { url: 'http://203.0.113.7/page' }, seenAt: day(9) }, true);
  const match = (await server.call('GET', '/api/v4/matches/', { key: ip.apiKey })).json.results[0];
  t.is(match.site.suffix, null);
  const group = (await list('group-site-path', '', ip.apiKey)).results[0]!;
  t.deepEqual(group.site, match.site);
  t.is(await count('group-site-path', '?site.suffix__isnull=true'), 0, 'the other account’s sites all have a suffix');
  t.is((await list('group-site-path', '?site.suffix__isnull=true', ip.apiKey)).count, 1, 'filters see the null the object shows');
  t.is((await server.call('GET', '/api/v4/matches/?site.suffix__isnull=true', { key: ip.apiKey })).json.count, 1);
  const csv = parse((await get('/api/v3/aggregations/group-site-path/?format=csv', ip.apiKey)).text, { columns: true }) as Obj[];
  t.is(csv[0]!['site.suffix'], '', 'CSV: an empty cell, like the matches export');
});
