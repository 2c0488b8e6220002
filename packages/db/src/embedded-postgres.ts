import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** postgres:// URL that any PostgreSQL client (pg, TypeORM, pg-boss, psql) can use. */
  url: string;
  stop(): Promise<void>;
}

/**
 * PostgreSQL embedded in the process: PGlite (PostgreSQL compiled to WASM) served over the
 * Postgres wire protocol on loopback. `dataDir` undefined means in memory (tests).
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number; maxConnections?: number } = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir ?? 'memory://');
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? 16,
  });
  await server.start();
  const conn = server.getServerConn();
  return {
    url: `postgres://postgres:postgres@${conn}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
