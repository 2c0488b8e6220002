// `npm run bench -- api [--seconds N] [--concurrency N]`: throughput and latency of
// GET /api/v4/account/ and the blacklist list, served by `filigrane start` on a real PostgreSQL.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchPostgres } from './support/postgres.js';
import { load } from './support/load.js';

const CLI = resolve(__dirname, '..', '..', '..', 'gateway', 'bin', 'filigrane.js');

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { seconds: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '64' } } });
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
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    pg.stop();
  }
}
