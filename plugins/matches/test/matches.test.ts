import test from 'ava';
import sharp from 'sharp';
import type { Sighting } from '@filigrane/core';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestServer } from '@filigrane/testing';

let server: TestServer;
let key: string;
let accountId: number;
const media: Record<string, number> = {};

async function register(path: string, colour: string): Promise<number> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } }).png().toBuffer();
  const res = await server.call('PUT', `/api/v4/media${path}`, { key, json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (res.status !== 201) throw new Error(res.text);
  return Number(new URL(res.json.thumbnail).pathname.split('/')[4]);
}

const day = (d: number, h = 12) => new Date(Date.UTC(2026, 2, d, h));

test.before(async () => {
  // review contributes the review_state filter the GraphQL parity cases use.
  server = await startTestServer({ plugins: ['matches', 'review'], workers: false });
  const account = await server.createAccount('tracker');
  key = account.apiKey;
  accountId = account.id;
  media.a = await register('/tracker/news/a.png', '#aa2200');
  media.b = await register('/tracker/ads/b.png', '#0022aa');
  const recorder = server.app.container.get(MatchRecorder);
  const base = (over: Partial<Sighting>): Sighting => ({ accountId, source: 'test', kind: 'web', image: {}, ...over });
  const sightings: [Partial<Sighting>, number | null, boolean][] = [
    [{ imageUrl: 'https://www.lemonde.fr/img/1.jpg', page: { url: 'https://www.lemonde.fr/article-1', type: 'article', headline: 'One', datePublished: day(1) }, seenAt: day(2), sessionId: 7 }, media.a!, true],
    [{ imageUrl: 'https://cdn.bbc.co.uk/2.jpg', page: { url: 'https://www.bbc.co.uk/news/2' }, seenAt: day(3), sessionId: 8 }, media.a!, false],
    [{ imageUrl: 'https://blog.example.com/3.png', page: { url: 'https://blog.example.com/post' }, seenAt: day(4) }, media.b!, true],
    [{ kind: 'press', press: { issueName: 'Le Monde', issueDate: '2026-03-05', pageNumber: 12 }, imageUrl: 'https://press.example.org/issue.pdf#p12', seenAt: day(5) }, media.a!, true],
    [{ kind: 'credit', credit: '© Tracker Inc', imageUrl: 'https://shop.example.net/c.jpg', page: { url: 'https://shop.example.net/p' }, seenAt: day(6) }, null, false],
  ];
  for (const [s, mediaId, watermarked] of sightings) {
    await recorder.record({ sighting: base(s), mediaId, watermarked, exclusive: null, query: { width: 640, height: 480, format: 'jpeg' } });
  }
});
test.after.always(async () => server?.close());

const list = (query = '', k = key) => server.call('GET', `/api/v4/matches/${query}`, { key: k });
const ids = (res: { json: { results: { media: { path: string }; page: { url: string | null } }[] } }) => res.json.results.map((r) => r.page.url);

test.serial('v4 list: every field, newest first, with count', async (t) => {
  const res = await list();
  t.is(res.status, 200);
  t.is(res.json.count, 4, 'v4 lists media matches: the credit match is in v3 only');
  t.is(res.json.results[0].page.url, null);
  const m = res.json.results.find((r: { page: { url: string } }) => r.page.url === 'https://www.lemonde.fr/article-1');
  t.deepEqual(Object.keys(m).sort(), ['date_created', 'date_updated', 'export', 'id', 'media', 'page', 'sessions', 'site', 'tags', 'url', 'watermarked']);
  t.like(m, { watermarked: true, export: true, tags: [], sessions: [7], site: { name: 'Lemonde', domain: 'lemonde.fr', suffix: 'fr', country: 'FR' } });
  t.like(m.page, { type: 'article', headline: 'One', date_published: '2026-03-01T12:00:00.000Z', image: { url: 'https://www.lemonde.fr/img/1.jpg' } });
  t.like(m.media, { id: String(media.a), type: 'image', path: '/tracker/news/a.png' });
  t.regex(m.media.thumbnail, /\/api\/v4\/media-files\/\d+\/thumbnail$/);
  const uk = res.json.results.find((r: { site: { domain: string } | null }) => r.site?.domain === 'bbc.co.uk');
  t.like(uk.site, { suffix: 'co.uk', country: 'GB' });
});

test.serial('v4 filters, alone and combined', async (t) => {
  t.is((await list('?watermarked=true')).json.count, 3);
  t.is((await list('?watermarked=false')).json.count, 1);
  t.deepEqual(ids(await list('?site.domain=lemonde.fr')), ['https://www.lemonde.fr/article-1']);
  t.is((await list('?site.suffix=co.uk')).json.count, 1);
  t.is((await list(`?media.id=${media.b}`)).json.count, 1);
  t.is((await list('?media.path=/tracker/news')).json.count, 3, 'a folder path covers the media below it');
  t.is((await list('?media.path=/tracker/news/a.png&watermarked=true')).json.count, 2);
  t.is((await list('?sessions=7,8')).json.count, 2);
  t.is((await list('?sessions=8')).json.count, 1);
  t.is((await list('?date_created__gte=2026-03-04')).json.count, 2);
  t.is((await list('?date_created__lt=2026-03-04&watermarked=true')).json.count, 1);
  t.is((await list('?date_created=2026-03-03')).json.count, 1);
  t.is((await list('?page.url=https://blog.example.com/post')).json.count, 1);
  t.is((await list('?page.date_published=2026-03-01')).json.count, 1);
  const first = (await list('?site.domain=lemonde.fr')).json.results[0];
  t.is((await list(`?id=${first.id}`)).json.count, 1);
  t.is((await list(`?site.id=${first.site.id}`)).json.count, 1);
  t.is((await list('?site.name=Lemonde')).json.count, 1);
  for (const bad of ['?watermarked=maybe', '?date_created__gte=yesterday', '?media.id=x', '?colour=red', '?cursor=garbage']) {
    t.is((await list(bad)).status, 400, bad);
  }
});

test.serial('cursor pagination keeps the filters and walks both ways', async (t) => {
  const p1 = await list('?page_size=2&watermarked=true');
  t.is(p1.json.results.length, 2);
  t.is(p1.json.previous, null);
  t.regex(p1.json.next, /cursor=.*watermarked=true|watermarked=true.*cursor=/);
  const p2 = await server.call('GET', p1.json.next, { key });
  t.is(p2.json.results.length, 1);
  t.is(p2.json.next, null);
  t.is(p2.json.count, 3);
  const back = await server.call('GET', p2.json.previous, { key });
  t.deepEqual(back.json.results.map((r: { id: string }) => r.id), p1.json.results.map((r: { id: string }) => r.id));
  t.is(back.json.previous, null);
});

test.serial('page=N without a cursor is that page (a client paging by number never loops on page 1); the links are cursors', async (t) => {
  const all = (await list('?watermarked=true')).json.results.map((r: { id: string }) => r.id);
  const second = await list('?page_size=1&page=2&watermarked=true');
  t.deepEqual(second.json.results.map((r: { id: string }) => r.id), [all[1]]);
  t.is(second.json.count, 3);
  t.notRegex(second.json.next, /[?&]page=/, 'next is a cursor link without page');
  t.deepEqual((await server.call('GET', second.json.next, { key })).json.results.map((r: { id: string }) => r.id), [all[2]]);
  t.deepEqual((await server.call('GET', second.json.previous, { key })).json.results.map((r: { id: string }) => r.id), [all[0]]);
  const past = await list('?page_size=1&page=9&watermarked=true');
  t.deepEqual([past.json.results, past.json.next], [[], null]);
  const v3 = await server.call('GET', '/api/v3/matches/web/?page_size=2&page=2', { key });
  t.deepEqual(v3.json.results.length, 1, 'v3 lists too');
  t.is((await list('?page=0')).json.code, 'invalid_page');
});

test.serial('a repeated sighting updates the match instead of adding one', async (t) => {
  const recorder = server.app.container.get(MatchRecorder);
  const again = await recorder.record({
    sighting: { accountId, source: 'test', kind: 'web', image: {}, imageUrl: 'https://cdn.bbc.co.uk/2.jpg', page: { url: 'https://www.bbc.co.uk/news/2' }, seenAt: day(9), sessionId: 9 },
    mediaId: media.a!, watermarked: true, exclusive: null, query: { width: 320, height: 240, format: 'jpeg' },
  });
  t.false(again.created);
  t.is((await list()).json.count, 4);
  const m = (await list('?site.domain=bbc.co.uk')).json.results[0];
  t.deepEqual(m.sessions, [8, 9]);
  t.true(m.watermarked, 'watermark evidence is kept once found');
  t.is(m.date_updated, day(9).toISOString());
});

test.serial('tags and export can be changed (PATCH), nothing else', async (t) => {
  const m = (await list('?site.domain=lemonde.fr')).json.results[0];
  const res = await server.call('PATCH', `/api/v4/matches/${m.id}/`, { key, json: { tags: ['legal', 'todo'], export: false } });
  t.is(res.status, 200);
  t.deepEqual(res.json.tags, ['legal', 'todo']);
  t.false(res.json.export);
  t.is((await list('?tags=legal')).json.count, 1);
  t.is((await list('?export=false')).json.count, 1);
  t.is((await server.call('PATCH', `/api/v4/matches/${m.id}/`, { key, json: { watermarked: false } })).status, 400);
  t.is((await server.call('PATCH', `/api/v4/matches/${m.id}/`, { key, json: { tags: 'x' } })).status, 400);
  t.is((await server.call('GET', `/api/v4/matches/${m.id}/`, { key })).json.watermarked, true);
});

test.serial('blacklist=true leaves out blacklisted domains and their subdomains', async (t) => {
  await server.call('POST', '/api/v4/domains/blacklist/', { key, json: { url: 'example.com' } });
  t.is((await list('?blacklist=true')).json.count, 3);
  t.is((await list()).json.count, 4, 'without the filter every match is listed');
  t.is((await server.call('GET', '/api/v3/matches/web/?blacklist=true', { key })).json.count, 2);
  await server.call('DELETE', '/api/v4/domains/blacklist/', { key, json: { url: 'example.com' } });
});

test.serial('v3 web, press and credit listings', async (t) => {
  const web = await server.call('GET', '/api/v3/matches/web/', { key });
  t.is(web.json.count, 3);
  const w = web.json.results.find((r: { domain: string }) => r.domain === 'www.lemonde.fr');
  t.like(w, { type: 'web', watermarked: true, query_url: 'https://www.lemonde.fr/img/1.jpg', query_width: 640, query_height: 480, query_page_url: 'https://www.lemonde.fr/article-1', session_id: 7, query_format: 'jpeg' });
  t.is(typeof w.id, 'number');
  t.is(w.paths[0].path, '/tracker/news/a.png');
  t.like(w.image, { type: 'web', url: 'https://www.lemonde.fr/img/1.jpg', width: 640, format: 'jpeg', page_url: 'https://www.lemonde.fr/article-1', crawl_date: day(2).toISOString() });
  t.is((await server.call('GET', new URL(w.url).pathname, { key })).json.id, w.id);
  t.is((await server.call('GET', '/api/v3/matches/web/?session_id=8', { key })).json.count, 1);
  t.is((await server.call('GET', '/api/v3/matches/web/?date_gte=2026-03-03&watermarked=true', { key })).json.count, 2);
  t.is((await server.call('GET', '/api/v3/matches/web/?date=2026-03-02&date_lt=2026-03-09', { key })).status, 400);
  const press = await server.call('GET', '/api/v3/matches/press/', { key });
  t.like(press.json.results[0], { type: 'press', watermarked: true, issue: { name: 'Le Monde', date: '2026-03-05' }, page_number: 12 });
  const credit = await server.call('GET', '/api/v3/matches/credit/', { key });
  t.like(credit.json.results[0], { type: 'credit', credit: '© Tracker Inc', image_url: 'https://shop.example.net/c.jpg', page_url: 'https://shop.example.net/p' });
  t.is((await server.call('GET', '/api/v3/matches/press/?exclusive=true', { key })).status, 400, 'press takes only its own filters');
  const csv = await server.call('GET', '/api/v3/matches/web/?format=csv', { key });
  t.true(csv.text.split('\r\n')[0]!.includes('query_url'), csv.text.slice(0, 300));
});

test.serial('another account sees none of these matches; deleting the media removes its matches', async (t) => {
  const other = await server.createAccount('othertracker');
  t.is((await list('', other.apiKey)).json.count, 0);
  const m = (await list()).json.results[0];
  t.is((await server.call('GET', `/api/v4/matches/${m.id}/`, { key: other.apiKey })).status, 404);
  t.is((await server.call('PATCH', `/api/v4/matches/${m.id}/`, { key: other.apiKey, json: { tags: ['x'] } })).status, 404);
  await server.call('DELETE', '/api/v4/media/tracker/ads/b.png', { key });
  t.is((await list()).json.count, 3);
  t.is((await list(`?media.id=${media.b}`)).json.count, 0);
});

test.serial('GraphQL: matches with filters and cursor', async (t) => {
  const q = await server.call('POST', '/graphql', { key, json: { query: '{ matches(filter: { watermarked: { equals: true } }, pageSize: 1) { count next results { id } } }' } });
  t.is(q.json.data.matches.count, 3);
  t.is(q.json.data.matches.results.length, 1);
  const next = await server.call('POST', '/graphql', { key, json: { query: 'query($c: String) { matches(filter: { watermarked: { equals: true } }, pageSize: 1, cursor: $c) { results { id } } }', variables: { c: q.json.data.matches.next } } });
  t.not(next.json.data.matches.results[0].id, q.json.data.matches.results[0].id);
});

test.serial('GraphQL: every v4 and v3 filter operator gives what the REST filter gives; typed, camelCase objects', async (t) => {
  const gql = async (query: string, variables?: Record<string, unknown>, k = key) => (await server.call('POST', '/graphql', { key: k, json: { query, variables } })).json;
  const v4 = 'query($f: MatchFilter) { matches(filter: $f) { count results { id } } }';
  const cases: [Record<string, unknown>, string][] = [
    [{ siteDomain: { not: 'lemonde.fr' } }, '?!site.domain=lemonde.fr'],
    [{ siteDomain: { in: ['lemonde.fr', 'bbc.co.uk'] } }, '?site.domain__in=lemonde.fr,bbc.co.uk'],
    [{ pageUrl: { startsWith: 'https://www.bbc' } }, '?page.url__startswith=https://www.bbc'],
    [{ siteId: { isNull: true } }, '?site.id__isnull=true'],
    [{ dateCreated: { gt: '2026-03-02' } }, '?date_created__gt=2026-03-02'],
    [{ dateCreated: { gte: '2026-03-02', lt: '2026-03-05' } }, '?date_created__gte=2026-03-02&date_created__lt=2026-03-05'],
    [{ dateUpdated: { lte: '2030-01-01' } }, '?date_updated__lte=2030-01-01'],
    [{ siteCountry: { equals: 'GB' } }, '?site.country=GB'],
    [{ pageDatePublished: { isNull: false } }, '?page.date_published__isnull=false'],
    [{ sessions: { in: [7, 8] } }, '?sessions__in=7,8'],
    [{ tags: { isNull: true } }, '?tags__isnull=true'],
    [{ watermarked: { not: true } }, '?!watermarked=true'],
    [{ mediaPath: { equals: '/tracker/news' } }, '?media.path=/tracker/news'],
    [{ id: { gt: 0 }, blacklist: true }, '?id__gt=0&blacklist=true'],
  ];
  const all = (await list()).json.count as number;
  let narrowed = 0;
  for (const [filter, rest] of cases) {
    const g = await gql(v4, { f: filter });
    const r = await list(rest);
    t.is(r.status, 200, rest);
    t.deepEqual(g.data.matches.results.map((m: { id: string }) => m.id), r.json.results.map((m: { id: string }) => m.id), `${JSON.stringify(filter)} = ${rest}`);
    if (r.json.count > 0 && r.json.count < all) narrowed++;
  }
  t.true(narrowed >= 8, 'most cases select some matches but not all');

  const one = await gql('{ matches(filter: { siteDomain: { equals: "lemonde.fr" } }) { results { id dateCreated watermarked sessions media { path type userMetadata } site { domain country } page { url headline datePublished image { url } } } } }');
  t.like(one.data.matches.results[0], { watermarked: true, sessions: [7], media: { path: '/tracker/news/a.png', type: 'image', userMetadata: {} }, site: { domain: 'lemonde.fr' }, page: { url: 'https://www.lemonde.fr/article-1', headline: 'One' } });
  const id = one.data.matches.results[0].id;
  t.is((await gql('query($id: String!) { match(id: $id) { id } }', { id })).data.match.id, id);

  const web = await gql('{ v3Matches(kind: "web", filter: { domain: { startsWith: "www." } }) { count results { id type domain queryPageUrl queryWidth queryFormat sessionId watermarked paths { path } image { url type } } } }');
  const restWeb = await server.call('GET', '/api/v3/matches/web/?domain__startswith=www.', { key });
  t.deepEqual(web.data.v3Matches.results.map((m: { id: number }) => m.id), restWeb.json.results.map((m: { id: number }) => m.id));
  t.like(web.data.v3Matches.results[0], { type: 'web', queryWidth: restWeb.json.results[0].query_width, queryFormat: 'jpeg', paths: [{ path: '/tracker/news/a.png' }] });
  const credit = await gql('{ v3Matches(kind: "credit", filter: { pageUrl: { startsWith: "https://shop" } }) { results { type credit imageUrl pageUrl } } }');
  t.like(credit.data.v3Matches.results[0], { type: 'credit', credit: '© Tracker Inc', pageUrl: 'https://shop.example.net/p' });
  // A filter the listing does not take: REST's 400, as BAD_USER_INPUT.
  const refused = await gql('{ v3Matches(kind: "press", filter: { domain: { equals: "x.fr" } }) { count } }');
  t.like(refused.errors[0].extensions, { code: 'BAD_USER_INPUT', apiCode: 'invalid_filter' });

  // Isolation: another account sees none of these, by list or by id.
  const other = await server.createAccount('gql-outsider');
  t.is((await gql('{ matches { count } }', undefined, other.apiKey)).data.matches.count, 0);
  const stranger = await gql('query($id: String!) { match(id: $id) { id } }', { id }, other.apiKey);
  t.is(stranger.data.match, null);
  t.is(stranger.errors[0].extensions.code, 'NOT_FOUND');
  t.is((await gql('{ v3Matches(kind: "web") { count } }', undefined, other.apiKey)).data.v3Matches.count, 0);
});
