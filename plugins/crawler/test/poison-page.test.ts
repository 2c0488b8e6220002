import test from 'ava';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import type { JobSpec } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { TestSite, waitFor } from './support/test-site.js';

// A page that kills every worker crawling it (a parser or codec crash, memory exhausted) used to
// be claimed again after each lease, by worker after worker, until the crawl's time ran out. Its
// takeovers are counted: the third time it is skipped, with a row in the pages log, and the crawl
// goes on. Killing three processes is slow, so the test writes the state three dead workers leave
// (the page still claimed, its lease over, taken over twice) before any worker runs.

let server: TestServer | undefined;
let site: TestSite | undefined;
test.after.always(async () => {
  await server?.close();
  await site?.close();
});

test('a page whose workers stopped three times while crawling it is skipped and logged; the crawl goes on', async (t) => {
  t.timeout(60_000);
  site = await new TestSite({
    '/robots.txt': { type: 'text/plain', body: '' },
    '/poison.html': { type: 'text/html', body: '<html><body>never fetched</body></html>' },
    '/ok.html': { type: 'text/html', body: '<html><body>fine</body></html>' },
  }).start();
  server = await startTestServer({ plugins: ['crawler'], workers: false, config: { extra: { ...process.env, FETCH_ALLOW_HOSTS: '127.0.0.1' } } });
  const { apiKey: key } = await server.createAccount('poison');
  const created = await server.call('POST', '/api/v3/crawling/sessions/', {
    key,
    json: { url: site.url('/ok.html'), start_urls: [site.url('/ok.html'), site.url('/poison.html')], download_delay: 0, search: false },
  });
  t.is(created.status, 201, created.text);
  await server.app.dataSource.query(
    `UPDATE crawl_urls SET state = 'claimed', claimed_until = now() - interval '1 second', takeovers = 2 WHERE session_id = $1 AND url = $2`,
    [created.json.id, site.url('/poison.html')],
  );

  const t0 = Date.now();
  const crawler = server.app.plugins.find((p) => p.id === 'crawler')!;
  await server.app.jobs.work(crawler.jobs!(server.app.container) as JobSpec<never>[]);
  const s = await waitFor('the crawl', async () => {
    const j = (await server!.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
    return j.cycle_count >= 1 && (j.state === 'done' || j.state === 'failed') ? j : null;
  });
  t.log(`crawled in ${Date.now() - t0} ms`);
  t.is(s.state, 'done', String(s.reason));
  t.is(site.hits('/poison.html').length, 0, 'not tried a fourth time');
  t.is(site.hits('/ok.html').length, 1);

  const batches = await server.call('GET', `/api/v3/crawling/sessions/${s.id}/batches/`, { key });
  const log = await fetch(batches.json.results[0].pages.log, { headers: { authorization: `Token ${key}` } });
  const rows = parse(gunzipSync(Buffer.from(await log.arrayBuffer())).toString('utf8'), { columns: true }) as { url: string; outcome: string }[];
  t.regex(rows.find((r) => r.url === site!.url('/poison.html'))?.outcome ?? '', /^error: skipped: its worker stopped 3 times while crawling it/);
  t.is(rows.find((r) => r.url === site!.url('/ok.html'))?.outcome, 'ok');
});
