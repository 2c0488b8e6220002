import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dataDirHolder, holderUrl, startEmbeddedPostgres, type DataDirHolder } from '@filigrane/db';
import type { GatewayConfig } from './config.js';

export interface Database {
  url: string;
  embedded: boolean;
  /** The embedded database of another process (a running `filigrane start`), reached over loopback. */
  attached: boolean;
  stop(): Promise<void>;
}

/** How long an operator command waits for a holder that is still starting to listen. */
const ATTACH_WAIT_MS = 60_000;

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL with its data under DATA_DIR/pg.
 * `attach` (operator commands): when a live process holds DATA_DIR/pg, use the wire-protocol
 * server it records in DATA_DIR/pg.lock instead of opening the directory a second time.
 * Without `attach`, a held directory fails with DataDirLockedError naming the holder.
 */
export async function openDatabase(config: GatewayConfig, options: { attach?: boolean } = {}): Promise<Database> {
  if (config.databaseUrl) {
    await reach(config.databaseUrl);
    return { url: config.databaseUrl, embedded: false, attached: false, stop: async () => undefined };
  }
  const dataDir = join(config.dataDir, 'pg');
  if (options.attach) {
    const holder = await listeningHolder(dataDir);
    if (holder) return { url: holderUrl(holder, dataDir), embedded: true, attached: true, stop: async () => undefined };
  }
  const pg = await startEmbeddedPostgres({ dataDir, port: config.embeddedPgPort });
  return { url: pg.url, embedded: true, attached: false, stop: () => pg.stop() };
}

/** The live holder of `dataDir` once it listens (it records its port after PGlite has started). */
async function listeningHolder(dataDir: string): Promise<DataDirHolder | null> {
  const deadline = Date.now() + ATTACH_WAIT_MS;
  for (;;) {
    const holder = dataDirHolder(dataDir);
    if (!holder || holder.port || Date.now() > deadline) return holder?.port ? holder : null;
    await sleep(200);
  }
}

/**
 * DATABASE_URL is reached once before anything else, so that a wrong host, port, database name or
 * password stops the boot naming the setting (the driver's own message alone, `connect
 * ECONNREFUSED 10.0.0.5:5432`, did not say which setting was wrong).
 */
async function reach(url: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`DATABASE_URL ${withoutPassword(url)}: the database could not be reached: ${(err as Error).message}`, { cause: err });
  } finally {
    await client.end().catch(() => undefined);
  }
}

function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}
