// `npm run bench -- api [--seconds N] [--concurrency N] [--embed-megapixels N]`: throughput and
// latency of GET /api/v4/account/ and the blacklist list, served by `filigrane start` on a real
// PostgreSQL; then the p99 of GET /api/v4/account/ alone and while 4 large watermark embeds run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { syntheticPhoto } from '@filigrane/vision';
import { benchPostgres } from './support/postgres.js';
import { load } from './support/load.js';

const CLI = resolve(__dirname, '..', '..', '..', 'gateway', 'bin', 'filigrane.js');

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { seconds: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '64' }, 'embed-megapixels': { type: 'string', default: '12' } },
  });
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const pg = benchPostgres();
  const env = {
    ...process.env,
    DATABASE_URL: pg.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'filigrane-bench-')),
    LOG_LEVEL: 'silent',
    PORT: String(18000 + Math.floor(Math.random() * 2000)),
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_PER_DAY: '1000000000',
  };
  const created = spawnSync(process.execPath, [CLI, 'account', 'create', '--username', 'bench', '--email', 'bench@example.com', '--json'], { env });
  if (created.status !== 0) throw new Error(`account create failed: ${created.stderr}`);
  const key = (JSON.parse(created.stdout.toString()) as { api_key: string }).api_key;
  const server = spawn(process.execPath, [CLI, 'start'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const base = await new Promise<string>((ok, fail) => {
      server.stdout.on('data', (d: Buffer) => {
        const m = /listening on (\S+)/.exec(d.toString());
        if (m) ok(m[1]!);
      });
      server.on('exit', (code) => fail(new Error(`server exited with ${code}`)));
    });
    const headers = { authorization: `Token ${key}` };
    for (const domain of ['a.com', 'b.org', 'c.net', 'd.io', 'e.fr']) {
      await fetch(`${base}/api/v4/domains/blacklist/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ url: domain }) });
    }
    console.log(`server: ${base} (PostgreSQL ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'throwaway cluster'}), ${concurrency} connections, ${seconds} s per endpoint, rate limiting on`);
    for (const path of ['/api/v4/account/', '/api/v4/domains/blacklist/']) {
      await load(`${base}${path}`, headers, concurrency, 2); // warm-up
      const r = await load(`${base}${path}`, headers, concurrency, seconds);
      console.log(
        `GET ${path.padEnd(28)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  ` +
          `(${r.requests} requests, statuses ${JSON.stringify(r.statuses)}, ${r.errors} errors)`,
      );
    }
    await duringEmbeds(base, headers, seconds, Number(values['embed-megapixels']));
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    pg.stop();
  }
}

/**
 * A cheap route's latency (4 connections) alone, then while 4 clients keep POSTing large images to
 * the watermarking endpoint (sync): embedding on the API's event loop shows as a p99 of seconds.
 */
async function duringEmbeds(base: string, headers: Record<string, string>, seconds: number, megapixels: number): Promise<void> {
  const width = Math.round(Math.sqrt(megapixels * 1e6 * 4 / 3));
  const height = Math.round((width * 3) / 4);
  const image = await sharp(await syntheticPhoto(7, 1024, 768)).resize(width, height).jpeg({ quality: 90 }).toBuffer();
  const account = `${base}/api/v4/account/`;
  await load(account, headers, 4, 1);
  const alone = await load(account, headers, 4, seconds);
  let running = true;
  let embeds = 0;
  const embedStatuses: Record<number, number> = {};
  const embedLatencies: number[] = [];
  const client = async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/v4/watermarking/?sync=true&timeout=600`, { method: 'POST', headers: { ...headers, 'content-type': 'image/jpeg' }, body: image }).catch(() => null);
      await res?.arrayBuffer();
      embedStatuses[res?.status ?? 0] = (embedStatuses[res?.status ?? 0] ?? 0) + 1;
      if (res?.status === 200) embedLatencies.push(performance.now() - t0);
      embeds++;
    }
  };
  const clients = [0, 1, 2, 3].map(() => client());
  await new Promise((r) => setTimeout(r, 1500)); // the four embeds are under way
  const loaded = await load(account, headers, 4, Math.max(seconds, 20));
  running = false;
  await Promise.all(clients);
  const mean = embedLatencies.length ? embedLatencies.reduce((a, b) => a + b, 0) / embedLatencies.length / 1000 : NaN;
  console.log(`watermarking: ${width}x${height} JPEG (${(image.length / 1e6).toFixed(1)} MB), 4 clients, ${embeds} embeds (statuses ${JSON.stringify(embedStatuses)}, mean ${mean.toFixed(1)} s)`);
  const line = (label: string, r: Awaited<ReturnType<typeof load>>) =>
    console.log(`GET /api/v4/account/ ${label.padEnd(22)} p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  ${r.rps.toFixed(0)} req/s  (statuses ${JSON.stringify(r.statuses)})`);
  line('alone', alone);
  line('during 4 large embeds', loaded);
  console.log(`p99 ratio (during / alone): ${(loaded.p99 / alone.p99).toFixed(1)}`);
}
