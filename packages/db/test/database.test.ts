import test from 'ava';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
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

test.serial('the embedded PostgreSQL requires the password kept beside its data (mode 0600)', async (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'filigrane-db-')), 'pg');
  const db = await startEmbeddedPostgres({ dataDir });
  try {
    const file = `${dataDir}.password`;
    t.is(statSync(file).mode & 0o777, 0o600);
    const password = readFileSync(file, 'utf8').trim();
    t.true(password.length >= 24);
    t.true(db.url.includes(encodeURIComponent(password)));
    t.deepEqual(await query<{ one: number }>(db.url, 'SELECT 1 AS one'), [{ one: 1 }]);
    const port = new URL(db.url).port;
    for (const url of [`postgres://postgres@127.0.0.1:${port}/postgres`, `postgres://postgres:wrong@127.0.0.1:${port}/postgres`, `postgres://other:@127.0.0.1:${port}/postgres`]) {
      const err = await t.throwsAsync(query(url, 'SELECT 1'));
      t.truthy(err);
    }
    const wrong = await t.throwsAsync(query(`postgres://postgres:wrong@127.0.0.1:${port}/postgres`, 'SELECT 1'));
    t.regex(wrong!.message, /password authentication failed/);
  } finally {
    await db.stop();
  }
  const again = await startEmbeddedPostgres({ dataDir });
  try {
    t.true(again.url.includes(encodeURIComponent(readFileSync(`${dataDir}.password`, 'utf8').trim())), 'the same password across restarts');
  } finally {
    await again.stop();
  }
});

test.serial('concurrent connections: parameterised statements and transactions do not interleave', async (t) => {
  const db = await startEmbeddedPostgres();
  const pool = new pg.Pool({ connectionString: db.url, max: 8 });
  try {
    await pool.query('CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0)');
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        if (i % 4 === 0) {
          const c = await pool.connect();
          try {
            await c.query('BEGIN');
            const { rows } = await c.query('SELECT n FROM counter WHERE id = $1 FOR UPDATE', [1]);
            await c.query('UPDATE counter SET n = $1 WHERE id = $2', [rows[0].n + 1, 1]);
            await c.query('COMMIT');
          } finally {
            c.release();
          }
          return true;
        }
        const args = Array.from({ length: (i % 5) + 1 }, (_, k) => i * 10 + k);
        const sql = `SELECT ${args.map((_, k) => `$${k + 1}::int`).join(' + ')} AS s`;
        const { rows } = await pool.query(sql, args);
        return rows[0].s === args.reduce((a, b) => a + b, 0);
      }),
    );
    t.true(results.every(Boolean));
    t.deepEqual((await pool.query('SELECT n FROM counter')).rows, [{ n: 50 }]);
  } finally {
    await pool.end();
    await db.stop();
  }
});

/** Closes a client's socket the way a killed process's closes: no Terminate message. */
const cut = (client: pg.Client): void => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();

test.serial('a connection that dies inside a transaction does not hold the embedded database (kill -9 of a worker mid-transaction)', async (t) => {
  // On disk, as `filigrane start` runs it.
  const db = await startEmbeddedPostgres({ dataDir: join(mkdtempSync(join(tmpdir(), 'filigrane-wire-')), 'db') });
  const other = new pg.Client({ connectionString: db.url });
  other.on('error', () => undefined);
  try {
    await other.connect();
    await other.query('CREATE TABLE seen (n int)');
    for (let i = 0; i < 4; i++) {
      // A simple query, then the extended protocol (a parameterised statement) inside the transaction.
      const dying = new pg.Client({ connectionString: db.url });
      dying.on('error', () => undefined);
      await dying.connect();
      await dying.query('BEGIN');
      if (i % 2) await dying.query('INSERT INTO seen VALUES ($1)', [i]);
      cut(dying);
      const answered = await Promise.race([
        other.query('SELECT count(*)::int AS n FROM seen').then((r) => r.rows[0].n as number),
        new Promise((r) => setTimeout(() => r('no answer in 10 s'), 10_000)),
      ]);
      t.is(answered, 0, `round ${i}: answered, and the dead transaction rolled back`);
      if (answered !== 0) return;
    }
    await other.end();
  } finally {
    // A held database would hold these too: a failure must not hang the file.
    cut(other);
    await Promise.race([db.stop(), new Promise((r) => setTimeout(r, 2000))]);
  }
});

test('embedded: large results read on several connections at once arrive whole', async (t) => {
  // Results of megabytes outrun the socket: PGlite's reused output memory must be copied (it used to
  // come out corrupted: a client RangeError or a hang).
  const db = await startEmbeddedPostgres();
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  try {
    await pool.query('CREATE TABLE v (id int, d bytea)');
    await pool.query("INSERT INTO v SELECT g, decode(repeat(md5(g::text), 64), 'hex') FROM generate_series(1, 3000) g");
    const results = await Promise.all(Array.from({ length: 4 }, () => pool.query<{ id: number; d: Buffer }>('SELECT id, d FROM v ORDER BY id')));
    for (const r of results) {
      t.is(r.rows.length, 3000);
      t.true(r.rows.every((row, i) => row.id === i + 1 && row.d.length === 1024 && row.d.subarray(0, 16).toString('hex') === row.d.subarray(16, 32).toString('hex')));
    }
  } finally {
    await pool.end();
    await db.stop();
  }
});
