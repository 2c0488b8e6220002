import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { TestSite, waitFor, type Route } from './support/test-site.js';

const PAGES = 30;
const BIN = resolve(__dirname, '../../../../gateway/bin/filigrane.js');

function slowPage(body: string): Route {
  return (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), 120);
}

let server: TestServer;
let site: TestSite;
const dataDir = mkdtempSync(join(tmpdir(), 'filigrane-resume-'));
const children: ChildProcess[] = [];

function worker(): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      ...process.env, DATABASE_URL: server.databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent',
      FILIGRANE_MASTER_KEY: server.masterKey.toString('base64'), FETCH_ALLOW_HOSTS: '127.0.0.1', CRAWL_CLAIM_LEASE: '2', CRAWL_CONCURRENCY: '2',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

test.before(async () => {
  const routes: Record<string, Route> = {
    '/': slowPage(Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}.html">${i}</a>`).join('')),
  };
  for (let i = 0; i < PAGES; i++) routes[`/p${i}.html`] = slowPage(`<a href="/">home</a><a href="/p${(i + 1) % PAGES}.html">next</a>`);
  site = await new TestSite(routes).start();
  server = await startTestServer({ plugins: ['crawler'], workers: false, config: { dataDir } });
});
test.after.always(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await server?.close();
  await site?.close();
});

test('kill -9 of the worker mid-crawl: another worker resumes it, no page twice in the batch, exactly one batch', async (t) => {
  const { apiKey: key } = await server.createAccount('durable');
  const created = await server.call('POST', '/api/v3/crawling/sessions/', { key, json: { url: site.url('/'), download_delay: 0, search: false } });
  t.is(created.status, 201, created.text);

  const first = worker();
  await waitFor('the first pages', async () => site.requests.filter((r) => r.path.startsWith('/p')).length >= 6, 60_000);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  const before = site.requests.length;
  t.true(before < PAGES, `killed mid-crawl after ${before} requests`);
  const running = (await server.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
  t.is(running.state, 'running');

  worker();
  const done = await waitFor('the resumed crawl', async () => {
    const s = (await server.call('GET', `/api/v3/crawling/sessions/${created.json.id}/`, { key })).json;
    return s.state === 'done' ? s : null;
  }, 90_000);
  t.is(done.cycle_count, 1);

  const batches = (await server.call('GET', '/api/v3/crawling/batches/', { key })).json.results;
  t.is(batches.length, 1);
  t.is(batches[0].pages.count, PAGES + 1);
  const log = Buffer.from(await (await fetch(batches[0].pages.log, { headers: { authorization: `Token ${key}` } })).arrayBuffer());
  const urls = gunzipSync(log).toString('utf8').trim().split('\n').slice(1).map((l) => l.split(',')[0]);
  t.is(urls.length, PAGES + 1);
  t.is(new Set(urls).size, urls.length, 'no page twice in the batch');
});
