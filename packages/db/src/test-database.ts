import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export interface TestDatabase {
  url: string;
  /** Drops the database (DATABASE_URL) or stops the in-memory server (embedded). */
  dispose(): Promise<void>;
}

/**
 * An isolated, empty database for one test file: a fresh database on the server named by
 * DATABASE_URL, or an in-memory embedded PostgreSQL when DATABASE_URL is unset.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = process.env.DATABASE_URL;
  if (!admin) {
    const embedded = await startEmbeddedPostgres();
    return { url: embedded.url, dispose: () => embedded.stop() };
  }
  const name = `filigrane_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withClient(admin, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // KEEP_TEST_DATABASE=1 leaves it for a later look (the index benchmark's --keep).
    dispose: async () => {
      if (process.env.KEEP_TEST_DATABASE === '1') return;
      await withClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
