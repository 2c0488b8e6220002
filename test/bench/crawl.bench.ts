// `npm run bench -- crawl [--concurrency N] [--search]`: crawls a real documentation site (the
// Debian Administrator's Handbook, from its Debian package) served on loopback, pages and images,
// with download_delay 0; then Crawlee's CheerioCrawler does the same job at the same concurrency.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startTestServer } from '@filigrane/gateway';

const REPO = resolve(__dirname, '../../..');

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

export async function filigrane(url: string, concurrency: number, search: boolean) {
  const server = await startTestServer({
    workers: true,
    config: {
      extra: {
        ...process.env, FETCH_ALLOW_HOSTS: '127.0.0.1', CRAWL_CONCURRENCY: String(concurrency), CRAWL_HOST_CONNECTIONS: String(concurrency),
        CRAWL_MAX_PAGES: '100000', CRAWL_MAX_DEPTH: '100',
      },
    },
  });
  try {
    const { apiKey: key } = await server.createAccount('bench');
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
    return { state: s.state, seconds, pages: batch.pages.count as number, images: batch.images.count as number, peak, warcBytes };
  } finally {
    await server.close();
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
  const concurrency = Number(args[args.indexOf('--concurrency') + 1]) || 4;
  const search = args.includes('--search');
  execFileSync(resolve(REPO, 'test/bench/fetch-site.sh'), { stdio: 'inherit' });
  const site = await serve(resolve(REPO, '.cache/sites/debian-handbook'));
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  try {
    const ours = await filigrane(site.url, concurrency, search);
    console.log(
      `filigrane: ${ours.state}, ${ours.pages} pages, ${ours.images} images in ${ours.seconds.toFixed(1)} s: ` +
        `${(ours.pages / ours.seconds).toFixed(1)} pages/s, ${(ours.images / ours.seconds).toFixed(1)} images/s, ` +
        `peak RSS ${mb(ours.peak)} (API, workers${process.env.DATABASE_URL ? '' : ' and the embedded PostgreSQL'} in one process), WARC ${mb(ours.warcBytes)}` +
        ` (concurrency ${concurrency}, matching ${search ? 'on' : 'off'})`,
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
