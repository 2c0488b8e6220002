// `npm run bench -- console [--matches N] [--concurrency N]`: the console's matches screen over tens of
// thousands of matches of one account, in Debian's Chromium (playwright-core), against the real
// server and database (embedded, or DATABASE_URL): time to first rows, DOM rows rendered (bounded by
// the virtual list), time to reach row 10,000 by scrolling and the last row by End (paging by cursor),
// the page's JS heap at the end, and a filter change over the full set. No peer is named: plain figures.
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'a bench passphrase';
const SITES = 50;
const MEDIA = 20;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { matches: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '8' } } });
  const total = Number(values.matches);
  const concurrency = Number(values.concurrency);
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false, config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 } } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const alice = await server.createAccount('reviewer');
    const set = await alice.call('POST', '/graphql', { json: { query: `mutation { changePassword(newPassword: "${PASSWORD}") }` } });
    if (set.json?.data?.changePassword !== true) throw new Error(set.text);
    const media: number[] = [];
    for (let i = 0; i < MEDIA; i++) {
      const png = await sharp({ create: { width: 48, height: 40, channels: 3, background: { r: i * 12, g: 80, b: 200 - i * 5 } } }).png().toBuffer();
      const res = await alice.call('PUT', `/api/v4/media/reviewer/m${i}.png`, { json: { url: `data:image/png;base64,${png.toString('base64')}` } });
      if (res.status !== 201) throw new Error(res.text);
      media.push(Number(new URL(res.json.thumbnail).pathname.split('/')[4]));
    }

    // The public recording path (what the crawler and the press pipeline call), `concurrency` at a time.
    const recorder = server.get(MatchRecorder);
    const t0 = performance.now();
    const year = Date.UTC(2025, 10, 1);
    let nextIndex = 0;
    const worker = async () => {
      for (let i = nextIndex++; i < total; i = nextIndex++) {
        const host = `www.site${i % SITES}.example`;
        await recorder.record({
          sighting: { accountId: alice.id, source: 'bench', kind: 'web', image: {}, imageUrl: `https://${host}/img/${i}.jpg`, page: { url: `https://${host}/page/${i}` }, seenAt: new Date(year + i * 1_500_000) },
          mediaId: media[i % MEDIA]!,
          watermarked: i % 2 === 0,
          exclusive: null,
          query: { width: 600, height: 450, format: 'jpeg' },
        });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const loadSeconds = (performance.now() - t0) / 1000;
    console.log(`loaded ${total} matches (${SITES} sites, ${MEDIA} media) through MatchRecorder.record, ${concurrency} at a time: ${loadSeconds.toFixed(1)} s (${(total / loadSeconds).toFixed(0)} matches/s)`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(300_000);
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill('reviewer');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

    // DOM rows sampled in the page itself all along the run, so that no moment escapes.
    // (Strings: this project compiles without the DOM library.)
    const domRows = async () => (await page.evaluate('document.querySelectorAll(".vlist li").length')) as number;
    const startSampling = () => page.evaluate('window.__maxRows = 0; window.__sampler = setInterval(() => (window.__maxRows = Math.max(window.__maxRows, document.querySelectorAll(".vlist li").length)), 20)');
    const maxRows = async () => (await page.evaluate('window.__maxRows')) as number;
    const rowShown = (i: number) => page.locator(`[data-row="${i}"]`).waitFor({ state: 'attached' });

    let t = performance.now();
    await page.goto(`${server.url}/#/matches`);
    await rowShown(0);
    const firstRowsMs = performance.now() - t;
    await startSampling();
    const rowsAtTop = await domRows();

    // Row 10,000 by scrolling the list to it (the list's own scrollTop, 72 px rows), then the last row
    // by End from a row on screen, checked every 25 ms until the row is in the DOM. A step is repeated
    // only when the list is no longer where the last one left it (it grew under it: a list only as
    // tall as what it loaded needs one step per page; one as tall as the whole result needs one).
    // The list's bottom is its <ul>'s: the loading indicator under it comes and goes.
    const reach = async (target: number, by: 'scroll' | 'End') => {
      const start = performance.now();
      let steps = 0;
      if (by === 'End') await page.locator('.vlist [data-row]').first().focus();
      for (;;) {
        if (await page.locator(`[data-row="${target}"]`).count()) return { ms: performance.now() - start, steps };
        const there = by === 'End' ? 'l.scrollTop + l.clientHeight >= l.querySelector("ul").offsetHeight - 1' : `l.scrollTop >= Math.min(${target} * 72, l.scrollHeight - l.clientHeight) - 1`;
        if (steps === 0 || !(await page.evaluate(`(l => ${there})(document.querySelector('.vlist'))`))) {
          if (by === 'End') await page.keyboard.press('End');
          else await page.evaluate(`document.querySelector('.vlist').scrollTop = ${target} * 72`);
          steps++;
        }
        await page.waitForTimeout(25);
      }
    };
    t = performance.now();
    const to10k = await reach(Math.min(9_999, total - 1), 'scroll');
    const toLast = await reach(total - 1, 'End');
    toLast.ms = performance.now() - t;
    const rowsAtEnd = await domRows();

    const cdp = await page.context().newCDPSession(page);
    const heapBefore = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };

    // A filter change over the full set: watermarked = no, from the form; time until its first rows show.
    const expected = await alice.call('POST', '/graphql', { json: { query: '{ matches(pageSize: 1, filter: {watermarked: {equals: false}}) { count } }' } });
    const filtered = expected.json.data.matches.count as number;
    const countText = new Intl.NumberFormat('en').format(filtered);
    await page.locator('select[name="watermarked"]').selectOption('false');
    t = performance.now();
    await page.getByRole('button', { name: 'Apply' }).click();
    // (Polled with evaluate: the console's CSP forbids the eval that waitForFunction(string) needs.)
    const shows = `!!(document.querySelector('p.muted[role="status"]')?.textContent?.includes('${countText} matches') && document.querySelector('[data-row="0"]'))`;
    while (!(await page.evaluate(shows))) await page.waitForTimeout(10);
    const filterMs = performance.now() - t;
    t = performance.now();
    const filteredLast = await reach(filtered - 1, 'End');
    filteredLast.ms = performance.now() - t;
    const peakRows = await maxRows();

    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    const table: [string, string][] = [
      ['matches of the account', `${total}`],
      ['loading them (MatchRecorder.record)', `${loadSeconds.toFixed(1)} s`],
      ['first rows after opening #/matches', `${firstRowsMs.toFixed(0)} ms`],
      ['DOM rows at the top / at the end / peak', `${rowsAtTop} / ${rowsAtEnd} / ${peakRows}`],
      [`row ${Math.min(10_000, total)} by scrolling`, `${(to10k.ms / 1000).toFixed(2)} s (${to10k.steps} scroll steps)`],
      [`last row (${total}) by End`, `${(toLast.ms / 1000).toFixed(2)} s from the top (then ${toLast.steps} End presses)`],
      ['JS heap used at the last row (before / after GC)', `${mb(heapBefore.usedSize)} / ${mb(heap.usedSize)}`],
      [`filter watermarked=no (${filtered}): first rows`, `${filterMs.toFixed(0)} ms`],
      [`filter watermarked=no: last row by End`, `${(filteredLast.ms / 1000).toFixed(2)} s (${filteredLast.steps} End presses)`],
    ];
    const w = Math.max(...table.map(([k]) => k.length));
    console.log(`console matches screen, Chromium ${browser.version()}, 1280x900, ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}`);
    for (const [k, v] of table) console.log(`  ${k.padEnd(w)}  ${v}`);
  } finally {
    await browser.close();
    await server.close();
  }
}
