import test from 'ava';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createBlobStore, createTestDatabase, startTestS3Server, type TestDatabase, type TestS3Server } from '@filigrane/db';
import { FFMPEG } from '@filigrane/video';
import { getSharp, syntheticPhoto } from '@filigrane/vision';
import { selectQueues } from '@filigrane/server';

// The many-machine shape on one host: two API-only processes and a worker on one real PostgreSQL
// and a real S3 server (s3rver), each process with its own DATA_DIR (they share no folder), the
// same FILIGRANE_MASTER_KEY. Runs in the DATABASE_URL suite only (CI's second run): the embedded
// database is a one-process database.

const CLI = resolve(dirname(require.resolve('@filigrane/gateway')), '..', '..', 'bin', 'filigrane.js');
const PAGES = 16;

interface Proc {
  name: string;
  child: ChildProcess;
  url: string | null;
  output(): string;
  /** Peak resident memory (VmHWM) so far, in MiB. */
  peakMiB(): number;
}

const procs: Proc[] = [];
const peaks: Record<string, number> = {};

function spawnFiligrane(name: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Proc> {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const proc: Proc = {
    name,
    child,
    url: null,
    output: () => out,
    peakMiB() {
      try {
        const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        return kb ? Math.round(Number(kb) / 1024) : 0;
      } catch {
        return 0;
      }
    },
  };
  procs.push(proc);
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after 90 s:\n${out}`)), 90_000);
    const take = (chunk: Buffer) => {
      out += chunk.toString();
      const m = ready.exec(out);
      if (m && !proc.url) {
        clearTimeout(timer);
        proc.url = m[1] ?? '';
        resolveStart(proc);
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it was ready:\n${out}`));
    });
  });
}

async function stop(p: Proc, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  peaks[p.name] = Math.max(peaks[p.name] ?? 0, p.peakMiB());
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill(signal);
  await exited;
}

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function http(base: string, method: string, path: string, key: string, body?: Buffer | string, headers: Record<string, string> = {}) {
  const res = await fetch(new URL(path, base), { method, headers: { authorization: `Token ${key}`, ...headers }, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, json, text: bytes.toString('utf8').slice(0, 500) };
}

const pathOf = (url: string) => new URL(url).pathname;
const idOf = (media: { thumbnail: string }) => Number(/media-files\/(\d+)\//.exec(media.thumbnail)![1]);

/** A slow little site: a home page linking to PAGES pages, each with an image of its own; page 3 shows `shown`. */
function site(shown: Buffer, tiles: Buffer[]): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const later = (fn: () => void) => setTimeout(fn, 150);
    if (path === '/robots.txt') return void res.writeHead(404).end();
    const img = /^\/img(\d+)\.jpg$/.exec(path);
    if (img) return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Number(img[1]) === 3 ? shown : tiles[Number(img[1])]);
    const page = /^\/p(\d+)\.html$/.exec(path);
    hits++;
    later(() => {
      if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}.html">${i}</a>`).join(''));
      if (!page) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Page ${page[1]}</h1><img src="/img${page[1]}.jpg"><a href="/">home</a>`);
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits })));
}

let db: TestDatabase | undefined;
let s3: TestS3Server | undefined;
let web: Server | undefined;

test.after.always(async () => {
  for (const p of procs) await stop(p, 'SIGKILL').catch(() => undefined);
  web?.close();
  await s3?.close();
  await db?.dispose();
});

test('--queues patterns select queues, and a pattern naming none is refused', (t) => {
  const specs = ['crawler.crawl', 'crawler.tick', 'search.run', 'watermarking.run', 'watermarking.purge-expired'].map((queue) => ({ queue }));
  t.deepEqual(selectQueues(specs, ['crawler.*', 'search.run']).map((s) => s.queue), ['crawler.crawl', 'crawler.tick', 'search.run']);
  t.deepEqual(selectQueues(specs, ['*.run']).map((s) => s.queue), ['search.run', 'watermarking.run']);
  t.is(selectQueues(specs).length, specs.length);
  t.throws(() => selectQueues(specs, ['crawler.*', 'serch.run']), { message: /serch\.run matches no queue; the queues are: crawler\.crawl/ });
  t.throws(() => selectQueues(specs, ['search.ru']), { message: /matches no queue/ }, 'a pattern matches a whole name');
  // The platform's queues (the outbox's delivery to webhooks and mails, run-time schedules) run on every worker.
  const withCore = [...specs, { queue: 'core.events' }, { queue: 'core.schedules' }];
  t.deepEqual(selectQueues(withCore, ['crawler.*']).map((s) => s.queue), ['crawler.crawl', 'crawler.tick', 'core.events', 'core.schedules']);
});

if (process.env.DATABASE_URL) {
  test('two API-only processes and a worker, sharing no folder: every file kind from either replica; a crawl killed with -9 is finished by another worker', async (t) => {
    t.timeout(240_000);
    const began = Date.now();
    [db, s3] = await Promise.all([createTestDatabase(), startTestS3Server()]);
    const masterKey = randomBytes(32).toString('base64');
    const metricsToken = randomBytes(16).toString('hex');
    const env = (name: string): NodeJS.ProcessEnv => {
      const e: NodeJS.ProcessEnv = {
        ...process.env, ...s3!.env('deployment'),
        DATABASE_URL: db!.url, FILIGRANE_MASTER_KEY: masterKey, DATA_DIR: mkdtempSync(join(tmpdir(), `filigrane-${name}-`)),
        PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', TOOL_BUILD: 'off', METRICS_TOKEN: metricsToken,
        FETCH_ALLOW_HOSTS: '127.0.0.1', CRAWL_CLAIM_LEASE: '2', JOB_LEASE_SECONDS: '5', CRAWL_CONCURRENCY: '2', RATE_LIMIT_PER_SECOND: '100000',
      };
      return e;
    };
    const listening = /Filigrane listening on (http:\/\/\S+)/;
    const working = /Worker metrics on (http:\/\/\S+)/;
    // Every process started at once on the empty database (a first deployment, or an upgrade that
    // restarts everything): one migrates while the others wait, one creates the demo account.
    const [a, b, w1] = await Promise.all([
      spawnFiligrane('api-a', ['start', '--no-workers'], env('api-a'), listening),
      spawnFiligrane('api-b', ['start', '--no-workers'], env('api-b'), listening),
      spawnFiligrane('worker-1', ['worker', '--queues', 'crawler.*,search.*,watermarking.*,media.*'], env('worker-1'), working),
    ]);
    const key = await waitFor('the demo key', async () => /API key: (\S+)/.exec(a.output() + b.output())?.[1], 10_000);
    t.truthy(key);
    t.is([a, b].filter((p) => p.output().includes('API key:')).length, 1, 'one demo account');
    t.log(`started in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    const A = a.url!;
    const B = b.url!;

    // Asynchronous watermarking asked on B, done by the worker (the original went through S3).
    const photo = await getSharp()(await syntheticPhoto(11)).jpeg({ quality: 92 }).toBuffer();
    const wm = await http(B, 'POST', '/api/v4/watermarking/', key!, JSON.stringify({ url: `data:image/jpeg;base64,${photo.toString('base64')}`, sync: false }), { 'content-type': 'application/json' });
    t.is(wm.status, 201, wm.text);
    const done = await waitFor('the watermarking', async () => {
      const s = await http(A, 'GET', pathOf(wm.json.url), key!);
      return s.json?.status === 'complete' || s.json?.status === 'failed' ? s.json : null;
    });
    t.is(done.status, 'complete', JSON.stringify(done.error));
    const assets: Record<string, Buffer> = {};
    for (const asset of ['original', 'watermarked', 'registration'] as const) {
      const [fromA, fromB] = await Promise.all([A, B].map((base) => http(base, 'GET', pathOf(done.result[asset]), key!)));
      t.is(fromA!.status, 200, `${asset} from A`);
      t.true(fromA!.bytes.equals(fromB!.bytes) && fromB!.status === 200, `${asset} from B`);
      assets[asset] = fromA!.bytes;
    }
    t.true(assets.original!.equals(photo), 'the original, byte for byte');

    // Registered on A: the registration file (watermarked media), a plain image, a video.
    const lmk = await http(A, 'PUT', '/api/v4/media/demo/marked.jpg', key!, assets.registration, { 'content-type': 'application/lmk' });
    t.is(lmk.status, 201, lmk.text);
    const plainPhoto = await getSharp()(await syntheticPhoto(12)).jpeg().toBuffer();
    const plain = await http(A, 'PUT', '/api/v4/media/demo/plain.jpg', key!, plainPhoto, { 'content-type': 'image/jpeg' });
    t.is(plain.status, 201, plain.text);
    const clip = join(mkdtempSync(join(tmpdir(), 'filigrane-clip-')), 'clip.mp4');
    execFileSync(FFMPEG, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=10', '-t', '3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', clip]);
    const clipBytes = readFileSync(clip);
    const video = await http(A, 'PUT', '/api/v4/media/demo/clip.mp4', key!, clipBytes, { 'content-type': 'video/mp4' });
    t.is(video.status, 201, video.text);

    // Searched on B, asynchronously: the query image goes through S3 to the worker.
    const search = await http(B, 'POST', '/api/v4/searches/', key!, JSON.stringify({ file: `data:image/jpeg;base64,${assets.watermarked!.toString('base64')}`, sync: false }), { 'content-type': 'application/json' });
    t.is(search.status, 201, search.text);
    const found = await waitFor('the search', async () => {
      const s = await http(A, 'GET', pathOf(search.json.url), key!);
      return s.json?.status === 'complete' || s.json?.status === 'failed' ? s.json : null;
    });
    t.is(found.status, 'complete', JSON.stringify(found.error));
    const hit = found.matches?.find((m: { image?: { media_path?: string } }) => m.image?.media_path?.endsWith('/marked.jpg'));
    t.truthy(hit, JSON.stringify(found).slice(0, 400));
    t.is(hit.watermarked, true, 'the watermark is detected by the worker with the reduced copy from S3');

    // The video is fingerprinted by the worker from the original in S3.
    const ready = await waitFor('the video fingerprint', async () => {
      const m = await http(B, 'GET', '/api/v4/media/demo/clip.mp4', key!);
      return m.json?.video?.status === 'ready' || m.json?.video?.status === 'failed' ? m.json : null;
    });
    t.is(ready.video.status, 'ready', JSON.stringify(ready.video));

    // Every media file from either replica; the video streamed in ranges.
    for (const [id, files] of [[idOf(lmk.json), ['thumbnail', 'image', 'registration']], [idOf(plain.json), ['thumbnail', 'image']], [idOf(video.json), ['thumbnail', 'stream']]] as const) {
      for (const file of files) {
        const [fromA, fromB] = await Promise.all([A, B].map((base) => http(base, 'GET', `/api/v4/media-files/${id}/${file}`, key!)));
        t.is(fromA!.status, 200, `${file} of ${id} from A: ${fromA!.text}`);
        t.is(fromB!.status, 200, `${file} of ${id} from B`);
        t.true(fromA!.bytes.equals(fromB!.bytes) && fromA!.bytes.length > 0, `${file} of ${id}: the same bytes`);
      }
    }
    t.true((await http(B, 'GET', `/api/v4/media-files/${idOf(plain.json)}/image`, key!)).bytes.equals(plainPhoto));
    const range = await http(B, 'GET', `/api/v4/media-files/${idOf(video.json)}/stream`, key!, undefined, { range: 'bytes=100-1099' });
    t.is(range.status, 206);
    t.is(range.headers.get('content-range'), `bytes 100-1099/${clipBytes.length}`);
    t.true(range.bytes.equals(clipBytes.subarray(100, 1100)), 'a ranged read from S3');

    // A watermarking whose worker is killed with -9 mid-way is taken back when its lease lapses (not
    // after pg-boss's 15-minute expiry) and done by another worker.
    const big = await getSharp()(await syntheticPhoto(13, 4000, 3000)).jpeg({ quality: 90 }).toBuffer();
    const slow = await http(B, 'POST', '/api/v4/watermarking/', key!, JSON.stringify({ url: `data:image/jpeg;base64,${big.toString('base64')}`, sync: false }), { 'content-type': 'application/json' });
    t.is(slow.status, 201, slow.text);
    await waitFor('the watermarking to run', async () => (await http(A, 'GET', pathOf(slow.json.url), key!)).json?.status === 'running');
    await stop(w1, 'SIGKILL');
    const w1b = await spawnFiligrane('worker-1b', ['worker', '--queues', 'crawler.*,watermarking.*'], env('worker-1b'), working);

    // A crawl started on A, taken by worker 1b, killed with -9 mid-way and finished by worker 2.
    const tiles = await Promise.all(Array.from({ length: PAGES }, async (_, i) => getSharp()(await syntheticPhoto(100 + i, 200, 150)).jpeg().toBuffer()));
    const s = await site(assets.watermarked!, tiles);
    web = s.server;
    const crawl = await http(A, 'POST', '/api/v3/crawling/sessions/', key!, JSON.stringify({ url: `${s.url}/`, download_delay: 0, search: true }), { 'content-type': 'application/json' });
    t.is(crawl.status, 201, crawl.text);
    await waitFor('the first pages', async () => s.hits() >= 6);
    await stop(w1b, 'SIGKILL');
    const before = s.hits();
    t.true(before < PAGES + 1, `killed mid-crawl after ${before} pages`);
    const w2 = await spawnFiligrane('worker-2', ['worker'], env('worker-2'), working);
    const crawled = await waitFor('the resumed crawl', async () => {
      const c = await http(B, 'GET', `/api/v3/crawling/sessions/${crawl.json.id}/`, key!);
      return c.json?.state === 'done' || c.json?.state === 'failed' ? c.json : null;
    }, 90_000);
    t.is(crawled.state, 'done', JSON.stringify(crawled));
    t.regex(w2.output(), new RegExp(`crawl ${crawl.json.id}:1 (resumed at start|taken over)`), 'the takeover is logged');
    // Logged once the batch's pieces are cleared, just after the state the API shows.
    const ended = new RegExp(`crawl ${crawl.json.id}:1 done: batch \\d+ written, \\d+ ms in this process`);
    t.true(await waitFor('the crawl\'s end in the log', async () => ended.test(w2.output()), 10_000).catch(() => false), 'the crawl\'s end is logged where it ended');

    const batches = (await http(B, 'GET', '/api/v3/crawling/batches/', key!)).json.results;
    t.is(batches.length, 1, 'exactly one batch');
    const batch = batches[0];
    t.is(batch.pages.count, PAGES + 1);
    const files: Record<string, Buffer> = {};
    for (const [name, url] of Object.entries({ pages_log: batch.pages.log, images_log: batch.images.log, images_tar: batch.images.tar, warc: batch.pages.warc })) {
      const [fromA, fromB] = await Promise.all([A, B].map((base) => http(base, 'GET', pathOf(url as string), key!)));
      t.is(fromA!.status, 200, `${name} from A`);
      t.true(fromB!.status === 200 && fromA!.bytes.equals(fromB!.bytes), `${name} from B`);
      files[name] = fromA!.bytes;
    }
    // Every page fetched, before the kill and after it, has its records in the one WARC.
    const warc = gunzipSync(files.warc!).toString('latin1');
    const targets = new Set([...warc.matchAll(/WARC-Target-URI: <?(\S+?)>?\r\n/g)].map((m) => m[1]));
    for (let i = 0; i < PAGES; i++) t.true(targets.has(`${s.url}/p${i}.html`), `p${i}.html in the WARC`);
    t.true(targets.has(`${s.url}/`), 'the home page in the WARC');
    t.log(`WARC: ${targets.size} target URIs`);
    const tarNames = [...files.images_tar!.toString('latin1').matchAll(/img\d+\.jpg/g)].length;
    t.true(tarNames >= PAGES, `the TAR holds the ${PAGES} images (${tarNames} names)`);

    // The copy on page 3 is a web match, found by a worker, listed on either replica.
    const matches = await waitFor('the web match', async () => {
      const m = await http(B, 'GET', '/api/v4/matches/', key!);
      return m.json?.results?.length ? m.json.results : null;
    }, 20_000).catch(() => []);
    t.true(matches.length >= 1, 'the crawled copy is matched');

    const retaken = await waitFor('the watermarking taken back', async () => {
      const w = await http(B, 'GET', pathOf(slow.json.url), key!);
      return w.json?.status === 'complete' || w.json?.status === 'failed' ? w.json : null;
    });
    t.is(retaken.status, 'complete', JSON.stringify(retaken.error));
    t.regex(w1b.output() + w2.output(), /"queue":"watermarking\.run".*"msg":"job taken back: its worker process \S+ stopped/);

    // What the processes logged and counted.
    t.regex(w2.output(), /"queue":"crawler\.crawl".*"msg":"job completed"|"msg":"job completed".*"queue":"crawler\.crawl"/);
    t.regex(w1.output(), /"queue":"watermarking\.run"[^\n]*"ms":\d+/, 'the watermarking job, with its duration');
    const scrape = await fetch(`${A}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    const metrics = await scrape.text();
    t.is(scrape.status, 200);
    t.regex(metrics, /filigrane_http_requests_total\{route="\/api\/v3\/crawling\/sessions\/",method="POST",status="201"\} 1/);
    t.regex(metrics, /filigrane_visual_index_entries \d+/);
    t.regex(metrics, /filigrane_queue_depth/);
    t.is((await fetch(`${A}/metrics`)).status, 401);
    const workerMetrics = await (await fetch(w2.url!, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    t.regex(workerMetrics, /filigrane_jobs_total\{queue="crawler\.crawl",outcome="completed"\} \d+/);

    // A stored file gone (deleted behind the service's back) is a server fault with its own code, its key logged.
    Object.assign(process.env, s3.env()); // this test process reads the store as the operators would
    const store = createBlobStore({ url: `s3://${s3.bucket}/deployment`, endpoint: s3.endpoint, forcePathStyle: true, dataDir: tmpdir() });
    const thumbKey = `media/${idOf(plain.json)}/thumbnail.jpg`;
    await store.delete(thumbKey);
    const gone = await http(B, 'GET', `/api/v4/media-files/${idOf(plain.json)}/thumbnail`, key!);
    t.is(gone.status, 500);
    t.is(gone.json?.code, 'file_missing');
    t.false(gone.text.includes(thumbKey), 'the key is for the log, not the client');
    await waitFor('the log line', async () => b.output().includes(thumbKey), 5_000);

    // A bucket that does not exist stops the boot, saying so (not a "missing file" on every request).
    const noBucket = await spawnFiligrane('no-bucket', ['worker'], { ...env('no-bucket'), BLOB_STORE_URL: 's3://no-such-bucket/x' }, /\n(?!)/).then(
      () => '',
      (err: Error) => err.message,
    );
    t.regex(noBucket, /exited \(1\)[\s\S]*BLOB_STORE_URL s3:\/\/no-such-bucket\/x: the bucket "no-such-bucket" does not exist/);

    // The S3 server stops: a file request is a 503 of its own code, its key logged.
    await s3.close();
    s3 = undefined;
    const down = await http(A, 'GET', `/api/v4/media-files/${idOf(lmk.json)}/thumbnail`, key!);
    t.is(down.status, 503, down.text);
    t.is(down.json?.code, 'blob_store_unavailable');
    await waitFor('the log line', async () => a.output().includes(`deployment/media/${idOf(lmk.json)}/thumbnail.jpg failed`), 5_000);

    for (const p of [a, b, w2]) await stop(p);
    for (const p of procs) if (peaks[p.name]) t.log(`${p.name}: peak RSS ${peaks[p.name]} MiB`);
    t.log(`multi-process test: ${((Date.now() - began) / 1000).toFixed(1)} s`);
  });
}
