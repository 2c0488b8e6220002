import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, startEmbeddedPostgres } from '../src/index.js';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

test.serial('the embedded PostgreSQL keeps its data across restarts', async (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'filigrane-db-')), 'pg');
  const first = await startEmbeddedPostgres({ dataDir });
  await query(first.url, 'CREATE TABLE kept (v text); INSERT INTO kept VALUES (\'still here\')');
  await first.stop();
  const second = await startEmbeddedPostgres({ dataDir });
  try {
    t.deepEqual(await query<{ v: string }>(second.url, 'SELECT v FROM kept'), [{ v: 'still here' }]);
  } finally {
    await second.stop();
  }
});

test.serial('test databases are isolated from each other', async (t) => {
  const a = await createTestDatabase();
  const b = await createTestDatabase();
  try {
    await query(a.url, 'CREATE TABLE only_in_a (x int)');
    const inB = await query<{ n: string }>(b.url, "SELECT count(*) AS n FROM pg_tables WHERE tablename = 'only_in_a'");
    t.is(Number(inB[0]!.n), 0);
  } finally {
    await a.dispose();
    await b.dispose();
  }
});
