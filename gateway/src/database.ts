import { join } from 'node:path';
import { startEmbeddedPostgres } from '@filigrane/db';
import type { GatewayConfig } from './config.js';

export interface Database {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL with its data under DATA_DIR/pg. */
export async function openDatabase(config: GatewayConfig): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => undefined };
  const pg = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'pg'), port: config.embeddedPgPort });
  return { url: pg.url, embedded: true, stop: () => pg.stop() };
}
