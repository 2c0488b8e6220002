import test from 'ava';
import sharp from 'sharp';
import { parse } from 'csv-parse/sync';
import type { DataSource } from 'typeorm';
import { TOKENS, type Sighting } from '@filigrane/core';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestServer } from '@filigrane/testing';

let server: TestServer;
let key: string;
let otherKey: string;
let accountId: number;
let mediaA: number;
let mediaB: number;

async function register(path: string, colour: string): Promise<number> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } }).png().toBuffer();
  const res = await server.call('PUT', `/api/v4/media${path}`, { key, json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (res.status !== 201) throw new Error(res.text);
  return Number(new URL(res.json.thumbnail).pathname.split('/')[4]);
}

const day = (d: number) => new Date(Date.UTC(2026, 4, d, 12));

test.before(async () => {
  server = await startTestServer({ plugins: ['matches', 'aggregations'], workers: false });
  const account = await server.createAccount('exporter');
  key = account.apiKey;
  accountId = account.id;
  otherKey = (await server.createAccount('bystander')).apiKey;
  mediaA = await register('/exporter/folder/a.png', '#aa2200');
  mediaB = await register('/exporter/b.png', '#0022aa');
  const recorder = server.app.container.get(MatchRecorder);
  const sight = (mediaId: number, s: Partial<Sighting>, watermarked: boolean) =>
    recorder.record({ sighting: { accountId, source: 'test', kind: 'web', image: {}, ...s }, mediaId, watermarked, exclusive: null, query: { width: 10, height: 10, format: 'png' } });
  await sight(mediaA, { imageUrl: 'https://www.lemonde.fr/1.jpg', page: { url: 'https://www.lemonde.fr/a', headline: '=cmd|calc', datePublished: day(1) }, seenAt: day(2), sessionId: 3 }, true);
  await sight(mediaA, { imageUrl: 'https://news.bbc.co.uk/2.jpg', page: { url: 'https://news.bbc.co.uk/b' }, seenAt: day(3), sessionId: 4 }, false);
  await sight(mediaB, { imageUrl: 'https://blog.example.com/3.jpg', seenAt: day(4) }, true);
  await sight(mediaB, { kind: 'press', press: { issueName: 'Daily', issueDate: '2026-05-05', pageNumber: 2 }, imageUrl: 'https://press.example.org/d.pdf#2', seenAt: day(5) }, true);
});
test.after.always(async () => server?.close());

const v4 = (query: string, k = key) => server.call('GET', `/api/v4/matches/${query}`, { key: k });
const count = async (query: string) => {
  const res = await v4(query);
  if (res.status !== 200) throw new Error(`${query}: ${res.text}`);
  return res.json.count as number;
};

test.serial('v4 matches take every operator of the filter language', async (t) => {
  t.is(await count(''), 4);
  t.is(await count('?!site.domain=lemonde.fr'), 3);
  t.is(await count('?site.domain__in=lemonde.fr,BBC.co.uk'), 2);
  t.is(await count('?site.domain__startswith=lem'), 1);
  t.is(await count('?date_created>=2026-05-03'), 3);
  t.is(await count('?date_created<=2026-05-03'), 2);
  t.is(await count('?sessions__isnull=true'), 2);
  t.is(await count('?page.url__isnull=true'), 2, 'the blog image and the press page have no page URL');
  t.is(await count('?media.path__startswith=/exporter/folder/'), 2);
  t.is(await count('?media.path=/exporter/folder'), 2, 'the spec filter keeps covering a folder');
  t.is(await count(`?media.id__in=${mediaA},${mediaB}&watermarked=true`), 3);
  t.is(await count('?page.date_published__lt=2026-05-02'), 1);
  t.is(await count('?site.country=GB'), 1);
  for (const [query, param] of [['?site.colour=x', 'site.colour'], ['?sessions__gt=3', 'sessions__gt'], ['?date_created__lt=tomorrow', 'date_created__lt'], ['?media.id=abc', 'media.id'], ['?url=x', 'url']]) {
    const res = await v4(query!);
    t.is(res.status, 400, query);
    t.truthy(res.json.details[param!], res.text);
  }
});

test.serial('v3 listings keep their spec filters and gain the operators', async (t) => {
  const web = (q: string) => server.call('GET', `/api/v3/matches/web/${q}`, { key });
  t.is((await web('?date_lte=2026-05-02')).json.count, 1);
  t.is((await web('?date_gt=2026-05-02')).json.count, 2);
  t.is((await web('?session_id=4')).json.count, 1);
  t.is((await web('?session_id__in=3,4')).json.count, 2);
  t.is((await web('?domain__startswith=news.')).json.count, 1);
  t.is((await web('?!watermarked=true')).json.count, 1);
  t.is((await web('?date=2026-05-02&date_lt=2026-05-09')).status, 400);
  t.is((await server.call('GET', '/api/v3/matches/press/?domain=x', { key })).status, 400);
});

test.serial('CSV of v4 matches: every exportable match, not one page, flattened and injection-safe', async (t) => {
  const lemonde = (await v4('?site.domain=lemonde.fr')).json.results[0];
  await server.call('PATCH', `/api/v4/matches/${lemonde.id}/`, { key, json: { tags: ['@SUM(A1)', 'ok'] } });
  const bbc = (await v4('?site.domain=bbc.co.uk')).json.results[0];
  await server.call('PATCH', `/api/v4/matches/${bbc.id}/`, { key, json: { export: false } });
  const res = await v4('?format=csv&page_size=1');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type')!, /^text\/csv/);
  t.regex(res.headers.get('content-disposition')!, /^attachment; filename="matches-\d{4}-\d{2}-\d{2}\.csv"$/);
  const rows = parse(res.text, { columns: true }) as Record<string, string>[];
  t.is(rows.length, 3, 'export=false is left out; page_size does not cut an export');
  const row = rows.find((r) => r['site.domain'] === 'lemonde.fr')!;
  t.like(row, { id: lemonde.id, 'media.path': '/exporter/folder/a.png', 'page.url': 'https://www.lemonde.fr/a', tags: "'@SUM(A1),ok", 'page.headline': "'=cmd|calc", watermarked: 'true' });
  t.false(Object.keys(row).some((k) => k.startsWith('media.user_metadata')));
  t.is((parse((await v4('?format=csv&watermarked=true')).text, { columns: true }) as unknown[]).length, 3);
  t.is((await v4('?format=csv', otherKey)).text.trim().split('\r\n').length, 1, 'another account gets the header only');
});

test.serial('CSV of the v3 lists', async (t) => {
  const web = await server.call('GET', '/api/v3/matches/web/?format=csv', { key });
  t.regex(web.headers.get('content-disposition')!, /filename="web-matches-/);
  const rows = parse(web.text, { columns: true }) as Record<string, string>[];
  t.is(rows.length, 3, 'v3 objects have no export flag: every match');
  t.like(rows.find((r) => r.domain === 'www.lemonde.fr'), { type: 'web', session_id: '3', query_page_url: 'https://www.lemonde.fr/a', 'image.url': 'https://www.lemonde.fr/1.jpg' });
  const press = parse((await server.call('GET', '/api/v3/matches/press/?format=csv', { key })).text, { columns: true }) as Record<string, string>[];
  t.like(press[0], { type: 'press', 'issue.name': 'Daily', 'issue.date': '2026-05-05', page_number: '2' });
});

test.serial('a large export streams across batches: every row once, in order', async (t) => {
  // 2,500 more matches straight into the table (the trigger keeps aggregations too).
  await server.app.container.get<DataSource>(TOKENS.DataSource).query(
    `INSERT INTO matches (account_id, media_id, kind, source, watermarked, page_url, query_url, date_created, date_updated)
     SELECT $1, $2, 'web', 'bulk', i % 2 = 0, 'https://bulk.example.com/p' || i, 'https://bulk.example.com/i' || i, $3::timestamptz + i * interval '1 second', $3::timestamptz
     FROM generate_series(1, 2500) i`,
    [accountId, mediaB, day(10)],
  );
  const rows = parse((await v4('?format=csv&media.id=' + mediaB)).text, { columns: true }) as Record<string, string>[];
  t.is(rows.length, 2502);
  t.is(new Set(rows.map((r) => r.id)).size, 2502);
  const dates = rows.map((r) => r.date_created);
  t.deepEqual(dates, [...dates].sort().reverse(), 'newest first');
  const groups = await server.call('GET', `/api/v3/aggregations/group-path/?media.id=${mediaB}`, { key });
  t.is(groups.json.results[0].match_count, 2502);
});
