import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataDir, type DataDirHolder } from './data-dir-lock.js';

export interface EmbeddedPostgres {
  /** postgres:// URL that any PostgreSQL client (pg, TypeORM, pg-boss, psql) can use. */
  url: string;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** postgres:// URL of an embedded database's wire-protocol server (its own, or another process's). */
export function embeddedUrl(host: string, port: number): string {
  return `postgres://postgres:postgres@${host}:${port}/postgres?sslmode=disable`;
}

/** URL of the embedded database served by the process that holds the directory (operator commands). */
export function holderUrl(holder: Pick<DataDirHolder, 'host' | 'port'>): string {
  return embeddedUrl(holder.host ?? HOST, holder.port!);
}

/**
 * PostgreSQL embedded in the process: PGlite (PostgreSQL compiled to WASM) served over the
 * Postgres wire protocol on loopback. `dataDir` undefined means in memory (tests). One process
 * at a time opens a directory: the lock beside it (data-dir-lock.ts) names the holder and, once
 * it listens, its port.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number; maxConnections?: number } = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const lock = options.dataDir ? lockDataDir(options.dataDir) : null;
  try {
    const db = await PGlite.create(options.dataDir ?? 'memory://');
    const server = new PGLiteSocketServer({
      db,
      host: HOST,
      port: options.port ?? 0,
      maxConnections: options.maxConnections ?? 16,
    });
    await server.start();
    const port = Number(server.getServerConn().split(':').pop());
    lock?.listening(HOST, port);
    return {
      url: embeddedUrl(HOST, port),
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
