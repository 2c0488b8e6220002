import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { DataSource } from 'typeorm';
import { TOKENS } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { VisualIndexService } from '@filigrane/plugin-search';
import { getSharp, syntheticPhoto } from '@filigrane/vision';

// The visual index is held once, in the database (docs/visual-index.md): what one process
// registers another finds at once, and a deletion leaves the index in its transaction.

const CLI = resolve(dirname(require.resolve('@filigrane/gateway')), '..', '..', 'bin', 'filigrane.js');

let server: TestServer;
let other: ChildProcess | undefined;
test.before(async () => {
  server = await startTestServer({ plugins: defaultPlugins() });
});
test.after.always(async () => {
  other?.kill('SIGKILL');
  await server?.close();
});

const jpeg = async (seed: number) => getSharp()(await syntheticPhoto(seed)).jpeg({ quality: 90 }).toBuffer();
const copyOf = async (img: Buffer) => getSharp()(img).resize(400).jpeg({ quality: 70 }).toBuffer();

async function search(base: string, key: string, image: Buffer): Promise<string[]> {
  const res = await fetch(`${base}/api/v4/searches/`, {
    method: 'POST',
    headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ file: `data:image/jpeg;base64,${image.toString('base64')}` }),
  });
  const body = (await res.json()) as { matches?: { image?: { media_path?: string } }[] };
  if (res.status !== 200 && res.status !== 201) throw new Error(`search: ${res.status} ${JSON.stringify(body)}`);
  return (body.matches ?? []).map((m) => m.image?.media_path ?? '');
}

async function put(base: string, key: string, path: string, image: Buffer): Promise<void> {
  const res = await fetch(`${base}/api/v4/media${path}`, { method: 'PUT', headers: { authorization: `Token ${key}`, 'content-type': 'image/jpeg' }, body: image });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

test('a deleted media leaves the shared index at once: its postings go, and it is found no more', async (t) => {
  t.timeout(120_000);
  const alice = await server.createAccount('alice');
  const index = server.get(VisualIndexService);
  const photo = await jpeg(31);
  await put(server.url, alice.apiKey, '/alice/kept.jpg', await jpeg(32));
  const before = await index.stats(alice.id);
  await put(server.url, alice.apiKey, '/alice/gone.jpg', photo);
  const indexed = await index.stats(alice.id);
  t.is(indexed.entries, before.entries + 1);
  t.true(indexed.postings > before.postings + 200, `postings ${before.postings} -> ${indexed.postings}`);
  t.deepEqual(await search(server.url, alice.apiKey, await copyOf(photo)), ['/alice/gone.jpg']);

  const del = await fetch(`${server.url}/api/v4/media/alice/gone.jpg`, { method: 'DELETE', headers: { authorization: `Token ${alice.apiKey}` } });
  t.true(del.ok, String(del.status));
  t.deepEqual(await index.stats(alice.id), before, 'exactly the deleted media\'s entry and postings are gone');
  t.deepEqual(await search(server.url, alice.apiKey, await copyOf(photo)), []);
});

test('rows whose postings an upgrade emptied are posted again on first use of their account, and found', async (t) => {
  t.timeout(120_000);
  // What VisualIndexCompactPostings leaves behind: rows with buckets NULL and no postings.
  const carol = await server.createAccount('carol');
  const index = server.get(VisualIndexService);
  const db = server.get<DataSource>(TOKENS.DataSource);
  const photo = await jpeg(41);
  await put(server.url, carol.apiKey, '/carol/a.jpg', photo);
  await put(server.url, carol.apiKey, '/carol/b.jpg', await jpeg(42));
  const posted = await index.stats(carol.id);
  await db.query('DELETE FROM visual_postings WHERE account_id = $1', [carol.id]);
  await db.query('UPDATE visual_index SET buckets = NULL WHERE account_id = $1', [carol.id]);
  t.is((await index.stats(carol.id)).postings, 0);
  t.deepEqual(await search(server.url, carol.apiKey, await copyOf(photo)), ['/carol/a.jpg']);
  t.deepEqual(await index.stats(carol.id), posted, 'every row posted again, once');
});

// Two processes on one PostgreSQL: the DATABASE_URL suite only (the embedded database belongs to one process).
if (process.env.DATABASE_URL) {
  test('two API processes share one index: registered through either, found through the other at once; deleted through one, gone from the other', async (t) => {
    t.timeout(150_000);
    const bob = await server.createAccount('bob');
    other = spawn(process.execPath, [CLI, 'start', '--no-workers'], {
      env: {
        ...process.env, DATABASE_URL: server.databaseUrl, FILIGRANE_MASTER_KEY: server.masterKey.toString('base64'),
        DATA_DIR: mkdtempSync(join(tmpdir(), 'filigrane-index-b-')), PORT: '0', HOST: '127.0.0.1', TOOL_BUILD: 'off', RATE_LIMIT_PER_SECOND: '100000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const B = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`the second process did not start in 90 s:\n${out}`)), 90_000);
      const take = (chunk: Buffer) => {
        out += chunk.toString();
        const m = /Filigrane listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]!);
        }
      };
      other!.stdout!.on('data', take);
      other!.stderr!.on('data', take);
      other!.once('exit', (code) => reject(new Error(`the second process exited (${code}):\n${out}`)));
    });
    const A = server.url;
    const [one, two] = [await jpeg(41), await jpeg(42)];
    // Searched first, so that any per-process state would be built before the registrations.
    t.deepEqual(await search(B, bob.apiKey, await copyOf(one)), []);
    t.deepEqual(await search(A, bob.apiKey, await copyOf(two)), []);
    await put(A, bob.apiKey, '/bob/one.jpg', one);
    await put(B, bob.apiKey, '/bob/two.jpg', two);
    t.deepEqual(await search(B, bob.apiKey, await copyOf(one)), ['/bob/one.jpg'], 'registered on A, found on B');
    t.deepEqual(await search(A, bob.apiKey, await copyOf(two)), ['/bob/two.jpg'], 'registered on B, found on A');
    const del = await fetch(`${B}/api/v4/media/bob/one.jpg`, { method: 'DELETE', headers: { authorization: `Token ${bob.apiKey}` } });
    t.true(del.ok, String(del.status));
    t.deepEqual(await search(A, bob.apiKey, await copyOf(one)), [], 'deleted on B, gone on A');
    t.is((await server.get(VisualIndexService).stats(bob.id)).entries, 1);
  });
}
