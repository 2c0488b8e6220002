import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchPostgres {
  url: string;
  stop(): void;
}

/**
 * DATABASE_URL when set; otherwise a throwaway PostgreSQL cluster from this machine's packages
 * (benchmarks measure a real server, not the embedded one).
 */
export function benchPostgres(): BenchPostgres {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: () => undefined };
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  if (!version) throw new Error('no PostgreSQL server found: install postgresql or set DATABASE_URL');
  const bin = join(root, version, 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-bench-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), 0);
  const run = (cmd: string, args: string[]) => {
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : spawnSync(join(bin, cmd), args);
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr?.toString()}`);
  };
  const port = 30000 + Math.floor(Math.random() * 20000);
  run('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres']);
  run('pg_ctl', ['-D', join(dir, 'data'), '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      run('pg_ctl', ['-D', join(dir, 'data'), '-m', 'fast', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
