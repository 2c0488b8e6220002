import test from 'ava';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { TOKENS, type DataSource } from '@filigrane/plugin-api';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { syntheticPhoto } from '@filigrane/vision';
import { eventually, startTestServer } from '@filigrane/testing';
import { evidencePlugin } from '../src/index.js';
import { startTimeStampAuthority } from './support/time-stamp-authority.js';

// kill -9 of the worker building an evidence pack: the API runs in this process (workers off) on
// the embedded database, the builds in `filigrane worker` child processes on the same database and
// DATA_DIR. The first worker is killed while Chromium renders the page (it waits on a stylesheet the
// test holds); a second worker takes the build over once the first one's heartbeat is stale. One
// pack, complete, downloadable, verified by `filigrane evidence verify`. Multi-process and Chromium:
// runs once, in the embedded-database suite (skipped when DATABASE_URL is set), with its own timeout.

const CLI = resolve(__dirname, '..', '..', '..', '..', 'gateway', 'bin', 'filigrane.js');
// Short, so the takeover is quick; long beside the heartbeat (a quarter of it), so a loaded machine's
// late heartbeat is not taken for a dead worker (2 s built a third time once under CI load).
const LEASE_SECONDS = 6;

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

(process.env.DATABASE_URL ? test.skip : test)('kill -9 of the worker mid-build: a new worker completes the pack, once, and it verifies', async (t) => {
  t.timeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'filigrane-evidence-kill-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const tsa = await startTimeStampAuthority();
  t.teardown(() => tsa.close());

  // The copy's page; its stylesheet (asked for by Chromium while it renders) is held the first time: the build is then under way.
  const photo = await sharp(await syntheticPhoto(7)).jpeg({ quality: 90 }).toBuffer();
  const held: ServerResponse[] = [];
  let stylesheets = 0;
  const site = createServer((req, res) => {
    if (req.url === '/article.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><title>Copy</title><link rel="stylesheet" href="/style.css"></head><body><h1>A copy</h1><img src="/photo.jpg" width="320"></body></html>');
    if (req.url === '/photo.jpg') return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    if (req.url === '/style.css') {
      stylesheets += 1;
      if (stylesheets === 1) return void held.push(res);
      return void res.writeHead(200, { 'content-type': 'text/css' }).end('body { background: #2255aa; }');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const res of held) res.destroy();
    site.close();
  });
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  const server = await startTestServer({ plugins: [evidencePlugin], workers: false, config: { dataDir }, env: { TSA_URL: tsa.url } });
  t.teardown(() => server.close());
  const db = server.get<DataSource>(TOKENS.DataSource);
  const children: ChildProcess[] = [];
  t.teardown(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  const worker = (name: string) => {
    const child = spawn(process.execPath, [CLI, 'worker'], {
      env: {
        ...process.env, DATABASE_URL: server.databaseUrl, DATA_DIR: dataDir, FILIGRANE_MASTER_KEY: server.masterKey.toString('base64'),
        FETCH_ALLOW_HOSTS: '127.0.0.1', TSA_URL: tsa.url, EVIDENCE_BUILD_LEASE_SECONDS: String(LEASE_SECONDS), LOG_LEVEL: 'warn', TOOL_BUILD: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code, signal) => t.log(`${name} exited (${code ?? signal}); its output:\n${out.slice(-3000)}`));
    children.push(child);
    return child;
  };

  const alice = await server.createAccount('alice');
  const put = await alice.call('PUT', '/api/v4/media/alice/photo.jpg', { body: photo, headers: { 'content-type': 'image/jpeg' } });
  t.is(put.status, 201, put.text);
  const recorded = await server.get(MatchRecorder).record({
    sighting: { accountId: alice.id, source: 'test', kind: 'web', image: {}, imageUrl: `${siteUrl}/photo.jpg`, page: { url: `${siteUrl}/article.html` } },
    mediaId: Number(/media-files\/(\d+)\//.exec(put.json.thumbnail)![1]), kind: 'web', watermarked: false, exclusive: null, query: { width: 320, height: 240, format: 'jpeg' },
  });
  const asked = await alice.call('POST', '/api/v4/evidence/', { json: { matches: [String(recorded.id)] } });
  t.is(asked.status, 202, asked.text);
  const packId = asked.json.id as string;
  const row = async () => (await db.query('SELECT status, attempts, heartbeat FROM evidence_packs WHERE id = $1', [packId]))[0] as { status: string; attempts: number; heartbeat: Date | null };

  // Worker 1 takes the build; Chromium asks for the stylesheet: the build is under way. kill -9.
  const first = worker('worker 1');
  await eventually('Chromium rendering the page (the stylesheet asked for)', async () => held.length > 0, 60_000);
  t.like(await row(), { status: 'pending', attempts: 1 });
  t.is((await alice.call('GET', `/api/v4/evidence/${packId}/`)).json.status, 'pending');
  const exited = new Promise((r) => first.once('exit', r));
  first.kill('SIGKILL');
  await exited;
  const killedAt = Date.now();

  // The dead worker's heartbeat goes stale (no sleep: the database says so), then worker 2 starts on the same database and folder.
  await eventually('the dead build\'s heartbeat to go stale', async () =>
    ((await db.query(`SELECT heartbeat < now() - make_interval(secs => $2) AS stale FROM evidence_packs WHERE id = $1`, [packId, LEASE_SECONDS]))[0] as { stale: boolean }).stale, 30_000);
  const restartedAt = Date.now();
  worker('worker 2');
  const pack = await eventually('the pack to complete', async () => {
    const p = (await alice.call('GET', `/api/v4/evidence/${packId}/`)).json;
    return p.status !== 'pending' ? p : null;
  }, 90_000);
  const doneAt = Date.now();
  t.log(`kill -9 to complete: ${doneAt - killedAt} ms; worker 2 started to complete: ${doneAt - restartedAt} ms (worker boot, Chromium and time stamp included)`);
  t.like(pack, { status: 'complete', error: null, contents: { screenshots: 1, screenshot_missing: null } });
  t.truthy(pack.contents.time_stamp?.time, 'time-stamped by the TSA');
  t.is((await row()).attempts, 2, 'built twice: the killed run and the one that finished');
  t.is(stylesheets, 2, 'the page was rendered again by the second build');

  // Exactly one pack, one file (no temp file left behind), and the download is that file.
  const list = (await alice.call('GET', '/api/v4/evidence/')).json;
  t.is(list.count, 1);
  t.deepEqual(list.results.map((p: { id: string }) => p.id), [packId]);
  const stored = filesUnder(dataDir).filter((f) => f.includes(`${join('evidence', String(alice.id))}`));
  t.deepEqual(stored.map((f) => f.split('/').pop()), [`${packId}.wacz`]);
  const res = await fetch(pack.download, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.is(res.status, 200);
  const wacz = Buffer.from(await res.arrayBuffer());
  t.is(wacz.length, pack.size);
  t.is(createHash('sha256').update(wacz).digest('hex'), pack.sha256);

  // `filigrane evidence verify` with the service's published key and the TSA's CA.
  const file = join(dataDir, 'pack.wacz');
  writeFileSync(file, wacz);
  const keys = await server.call('GET', '/api/v4/evidence/keys/');
  writeFileSync(join(dataDir, 'key.pem'), keys.json.results[0].public_key);
  const verified = spawnSync(process.execPath, [CLI, 'evidence', 'verify', file, '--key', join(dataDir, 'key.pem'), '--tsa-ca', tsa.caFile, '--require-time-stamp'], { encoding: 'utf8', timeout: 60_000 });
  // spawnSync blocks this worker's event loop (and the test's own timeout): bounded, so it fails instead of hanging the suite.
  t.is(verified.status, 0, `${verified.error?.message ?? ''}${verified.stdout}${verified.stderr}`);
});
