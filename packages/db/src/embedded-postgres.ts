import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir, type DataDirHolder } from './data-dir-lock.js';
import { serveWire } from './wire-server.js';
import { freshMemoryPglite } from './pglite-template.js';

export interface EmbeddedPostgres {
  /** postgres:// URL (with the password) that any PostgreSQL client (pg, TypeORM, pg-boss, psql) can use. */
  url: string;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** postgres:// URL of an embedded database's wire-protocol server (its own, or another process's). */
export function embeddedUrl(host: string, port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@${host}:${port}/postgres?sslmode=disable`;
}

/** URL of the embedded database served by the process that holds `dataDir` (operator commands), with its password. */
export function holderUrl(holder: Pick<DataDirHolder, 'host' | 'port'>, dataDir: string): string {
  return embeddedUrl(holder.host ?? HOST, holder.port!, embeddedPassword(dataDir));
}

/**
 * The password of an embedded database: generated once per data directory and kept beside it
 * (`<dataDir>.password`, mode 0600), so only the owner of the data can connect.
 */
export function embeddedPassword(dataDir: string): string {
  const file = `${dataDir.replace(/\/+$/, '')}.password`;
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(24).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}

/**
 * PostgreSQL embedded in the process: PGlite (PostgreSQL compiled to WASM) served over the
 * Postgres wire protocol on loopback, behind a password (wire-server.ts). `dataDir` undefined
 * means in memory (tests), with a password made up for this run. One process at a time opens a
 * directory: the lock beside it (data-dir-lock.ts) names the holder and, once it listens, its port.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number; maxConnections?: number } = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const lock = options.dataDir ? lockDataDir(options.dataDir) : null;
  try {
    const password = options.dataDir ? embeddedPassword(options.dataDir) : randomBytes(24).toString('base64url');
    const db = options.dataDir ? await PGlite.create(options.dataDir) : await freshMemoryPglite();
    const server = await serveWire(db, { port: options.port ?? 0, password, maxConnections: options.maxConnections });
    const port = Number(server.address.split(':').pop());
    lock?.listening(HOST, port);
    return {
      url: embeddedUrl(HOST, port, password),
      async stop() {
        await server.stop();
        await db.close();
        lock?.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}
