// `npm run bench -- crawl [--concurrency N] [--search] [--pages N]`: crawls a real documentation
// site (the Debian Administrator's Handbook, from its Debian package) served on loopback, pages
// and images, with download_delay 0; then Crawlee's CheerioCrawler does the same job at the same
// concurrency, and the ratio of pages/s is printed (target >= 1.5x, matching off).
//   --search     instead crawls the site twice, matching off then on, against 1,000 registered media (the photos
//                of fetch-photos.sh and generated photos, registered plain through the API), and
//                prints the cost of matching per image.
//   --pages N    crawls instead a site of N pages made of copies of the real handbook, in a
//                separate worker process (`filigrane worker`, as in production), and prints that
//                process's peak RSS (target < 400 MB for 10,000 pages).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { syntheticPhoto } from '@filigrane/vision';

const REPO = resolve(__dirname, '../../..');
const HANDBOOK = resolve(REPO, '.cache/sites/debian-handbook');
const BIN = resolve(REPO, 'gateway/bin/filigrane.js');
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

export async function serve(root: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [resolve(REPO, 'test/bench/support/static-site.js'), root], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((ok) => createInterface({ input: child.stdout! }).once('line', ok));
  return { url: `http://127.0.0.1:${line.trim()}/`, stop: () => void child.kill() };
}

function rssSampler() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return { stop: () => (clearInterval(timer), peak) };
}

/** Peak RSS of another process (VmHWM, kept by the kernel), in bytes. */
function peakRssOf(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** A site of about `pages` pages: copies of the whole handbook side by side (mirror m0, m1, ...), each with its own index. */
function mirroredSite(pages: number): string {
  const langs = readdirSync(HANDBOOK).filter((d) => readdirSync(join(HANDBOOK, d)).includes('index.html'));
  const perCopy = langs.reduce((n, l) => n + readdirSync(join(HANDBOOK, l)).filter((f) => f.endsWith('.html')).length, 0);
  const root = mkdtempSync(join(tmpdir(), 'crawl-bench-site-'));
  const copies = Math.ceil(pages / perCopy);
  for (let i = 0; i < copies; i++) {
    const dir = join(root, `m${i}`);
    mkdirSync(dir);
    for (const l of langs) symlinkSync(join(HANDBOOK, l), join(dir, l));
    writeFileSync(join(dir, 'index.html'), `<!doctype html><html><body>${langs.map((l) => `<a href="/m${i}/${l}/index.html">${l}</a>`).join(' ')}</body></html>`);
  }
  return root;
}

/** The handbook plus one page showing the registered photos (matching on finds them). */
function siteWithPhotos(photos: string[], photoDir: string): string {
  const root = mkdtempSync(join(tmpdir(), 'crawl-bench-site-'));
  for (const d of readdirSync(HANDBOOK)) symlinkSync(join(HANDBOOK, d), join(root, d));
  mkdirSync(join(root, 'photos'));
  for (const p of photos) symlinkSync(join(photoDir, p), join(root, 'photos', p));
  writeFileSync(join(root, 'photos', 'index.html'), `<!doctype html><html><head><title>Photos</title></head><body>${photos.map((p) => `<img src="${p}">`).join('\n')}</body></html>`);
  return root;
}

interface CrawlResult {
  state: string;
  seconds: number;
  pages: number;
  images: number;
  peak: number;
  warcBytes: number;
  matches: number;
}

async function crawlOnce(server: TestServer, key: string, url: string, search: boolean): Promise<CrawlResult> {
  const rss = rssSampler();
  const t0 = Date.now();
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url, download_delay: 0, search, download_timeout: 60, crawl_delay: 7200 } });
  if (created.status !== 201) throw new Error(created.text);
  let s;
  for (;;) {
    s = (await server.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
    if (s.state === 'done' || s.state === 'failed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (Date.now() - t0) / 1000;
  const peak = rss.stop();
  const batch = (await server.call('GET', `/api/v3/crawling/sessions/${created.json.id}/batches/`, { key })).json.results[0];
  const warc = await fetch(batch.pages.warc, { headers: { authorization: `Token ${key}` } });
  const warcBytes = Number(warc.headers.get('content-length'));
  await warc.body?.cancel();
  const listed = await server.call('GET', '/api/v3/matches/web/?page_size=1', { key });
  if (listed.status !== 200) throw new Error(`listing web matches: ${listed.status} ${listed.text.slice(0, 200)}`);
  const matches: number = listed.json.count;
  return { state: s.state, seconds, pages: batch.pages.count, images: batch.images.count, peak, warcBytes, matches };
}

function crawlerEnv(concurrency: number, maxPages: number): Record<string, string> {
  return {
    FETCH_ALLOW_HOSTS: '127.0.0.1', CRAWL_CONCURRENCY: String(concurrency), CRAWL_HOST_CONNECTIONS: String(concurrency),
    CRAWL_MAX_PAGES: String(maxPages), CRAWL_MAX_DEPTH: '100',
  };
}

export async function filigrane(url: string, concurrency: number, search: boolean): Promise<CrawlResult> {
  const server = await startTestServer({ plugins: defaultPlugins(), workers: true, config: { extra: { ...process.env, ...crawlerEnv(concurrency, 100_000) } } });
  try {
    const { apiKey: key } = await server.createAccount('bench');
    return await crawlOnce(server, key, url, search);
  } finally {
    await server.close();
  }
}

/** Matching off, then on against 1,000 registered media, on the same site: the difference per image is the cost of matching. */
async function matchingCost(concurrency: number): Promise<void> {
  execFileSync(resolve(REPO, 'test/bench/fetch-photos.sh'), { stdio: 'inherit' });
  const photoDir = resolve(REPO, '.cache/photos');
  const photos = readdirSync(photoDir).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
  const site = await serve(siteWithPhotos(photos, photoDir));
  const server = await startTestServer({
    plugins: defaultPlugins(),
    workers: true,
    config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 }, extra: { ...process.env, ...crawlerEnv(concurrency, 100_000) } },
  });
  try {
    const { apiKey: key } = await server.createAccount('bench');
    const register = async (path: string, body: Buffer, type: string) => {
      const res = await server.call('PUT', `/api/v4/media/bench/${path}`, { key, body, headers: { 'content-type': type } });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    };
    for (const p of photos) await register(`photos/${p}`, readFileSync(join(photoDir, p)), p.endsWith('.png') ? 'image/png' : 'image/jpeg');
    // The rest of the 1,000: generated photos, registered through the API like any media (4 at a time).
    const seeds = Array.from({ length: 1000 - photos.length }, (_, i) => 1000 + i);
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let seed = seeds.shift(); seed !== undefined; seed = seeds.shift()) await register(`generated/${seed}.png`, await syntheticPhoto(seed, 320, 240), 'image/png');
    }));
    console.log(`1000 registered media (plain): ${photos.length} photos and ${1000 - photos.length} generated ones; the site shows the ${photos.length} photos on one page`);
    const off = await crawlOnce(server, key, site.url, false);
    const on = await crawlOnce(server, key, site.url, true);
    for (const [name, r] of [['matching off', off], ['matching on', on]] as const) {
      console.log(`filigrane, ${name}: ${r.state}, ${r.pages} pages, ${r.images} images in ${r.seconds.toFixed(1)} s, ${(r.pages / r.seconds).toFixed(1)} pages/s, peak RSS ${mb(r.peak)}, ${r.matches} web matches`);
    }
    console.log(`cost of matching: ${(((on.seconds - off.seconds) * 1000) / on.images).toFixed(1)} ms per image (${on.images} images, identical ones identified once per crawl)`);
  } finally {
    await server.close();
    site.stop();
  }
}

/** A site of `pages` pages crawled by a separate `filigrane worker` process: its peak RSS. */
async function largeSite(pages: number, concurrency: number): Promise<void> {
  const site = await serve(mirroredSite(pages));
  const dataDir = mkdtempSync(join(tmpdir(), 'crawl-bench-data-'));
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false, config: { dataDir, extra: { ...process.env, ...crawlerEnv(concurrency, pages) } } });
  const worker = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      ...process.env, DATABASE_URL: server.databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent',
      FILIGRANE_MASTER_KEY: server.masterKey.toString('base64'), ...crawlerEnv(concurrency, pages),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const { apiKey: key } = await server.createAccount('bench');
    await new Promise((r) => setTimeout(r, 3000)); // the worker's boot
    const idle = peakRssOf(worker.pid!);
    const r = await crawlOnce(server, key, site.url, false);
    const peak = peakRssOf(worker.pid!);
    console.log(
      `filigrane, ${pages}-page site: ${r.state}, ${r.pages} pages, ${r.images} images in ${r.seconds.toFixed(1)} s (${(r.pages / r.seconds).toFixed(1)} pages/s), ` +
        `WARC ${mb(r.warcBytes)}; worker process peak RSS ${mb(peak)} (${mb(idle)} after boot; target < 400 MB); ` +
        `API process with the embedded PostgreSQL: peak ${mb(r.peak)}`,
    );
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
    await server.close();
    site.stop();
  }
}

async function crawlee(url: string, concurrency: number) {
  process.env.CRAWLEE_STORAGE_DIR = mkdtempSync(join(tmpdir(), 'crawlee-'));
  const { CheerioCrawler, Configuration } = await import('@crawlee/cheerio');
  let pages = 0;
  let images = 0;
  const rss = rssSampler();
  const t0 = Date.now();
  const crawler = new CheerioCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestRetries: 2,
      additionalMimeTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml', 'application/octet-stream'],
      async requestHandler({ request, $, enqueueLinks, body }) {
        if (request.label === 'image') {
          if (body.length >= 0) images++;
          return;
        }
        pages++;
        await enqueueLinks({ strategy: 'same-hostname' });
        const srcs = $('img[src]').map((_, el) => new URL($(el).attr('src')!, request.loadedUrl ?? request.url).href).get();
        await crawler.addRequests(srcs.map((u) => ({ url: u, label: 'image' })));
      },
    },
    new Configuration({ persistStorage: false, logLevel: 2 as never }),
  );
  await crawler.run([url]);
  return { seconds: (Date.now() - t0) / 1000, pages, images, peak: rss.stop() };
}

export async function run(args: string[]): Promise<void> {
  const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const concurrency = Number(opt('--concurrency')) || 4;
  execFileSync(resolve(REPO, 'test/bench/fetch-site.sh'), { stdio: 'inherit' });
  if (opt('--pages')) return largeSite(Number(opt('--pages')), concurrency);
  if (args.includes('--search')) return matchingCost(concurrency);
  const site = await serve(HANDBOOK);
  try {
    const ours = await filigrane(site.url, concurrency, false);
    console.log(
      `filigrane: ${ours.state}, ${ours.pages} pages, ${ours.images} images in ${ours.seconds.toFixed(1)} s: ` +
        `${(ours.pages / ours.seconds).toFixed(1)} pages/s, ${(ours.images / ours.seconds).toFixed(1)} images/s, ` +
        `peak RSS ${mb(ours.peak)} (API, workers${process.env.DATABASE_URL ? '' : ' and the embedded PostgreSQL'} in one process), WARC ${mb(ours.warcBytes)}` +
        ` (concurrency ${concurrency}, matching off)`,
    );
    const peer = await crawlee(site.url, concurrency);
    console.log(
      `crawlee (@crawlee/cheerio): ${peer.pages} pages, ${peer.images} images in ${peer.seconds.toFixed(1)} s: ` +
        `${(peer.pages / peer.seconds).toFixed(1)} pages/s, ${(peer.images / peer.seconds).toFixed(1)} images/s, peak RSS ${mb(peer.peak)} (no storage, no WARC)`,
    );
    console.log(`ratio filigrane/crawlee pages/s: ${((ours.pages / ours.seconds) / (peer.pages / peer.seconds)).toFixed(2)}x (target >= 1.5x, matching off)`);
  } finally {
    site.stop();
  }
}
