import test from 'ava';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { WARCParser } from 'warcio';
import { syntheticPhoto } from '@filigrane/vision';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { TOKENS, type AccountLifecycle, type BlobStore } from '@filigrane/plugin-api';
import { eventually, serveSite, startTestServer, type TestAccount, type TestServer, type TestSite } from '@filigrane/testing';
import { CRAWL_ARCHIVE, type CrawlArchive } from '@filigrane/plugin-crawler';
import { evidencePlugin } from '../src/index.js';
import { startTimeStampAuthority, type TimeStampAuthority } from './support/time-stamp-authority.js';

// One crawl of a loopback site finds a watermarked copy; its evidence pack is read back with
// unzip and warcio, its time stamp verified by `openssl ts -verify`, its signature by
// `openssl dgst`, and by `filigrane evidence verify` (which a flipped byte fails). Chromium is
// pointed at a missing path here: the pack says so (the Chromium test is evidence-chromium.test.ts).

const CLI = resolve(__dirname, '..', '..', '..', '..', 'gateway', 'bin', 'filigrane.js');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let server: TestServer;
let site: TestSite;
let hooks: TestSite;
let tsa: TimeStampAuthority;
let dir: string;
let marked: Buffer;
let alice: TestAccount;
const hookBodies: string[] = [];

async function warcRecords(gz: Buffer): Promise<{ type: string; url: string; payload: Buffer; headers: Record<string, string> }[]> {
  const out: { type: string; url: string; payload: Buffer; headers: Record<string, string> }[] = [];
  for await (const record of new WARCParser(Readable.from([gz]))) {
    const payload = Buffer.from(await record.readFully(true));
    out.push({ type: record.warcType ?? '', url: record.warcTargetURI ?? '', payload, headers: Object.fromEntries(record.warcHeaders.headers) });
  }
  return out;
}

const collectKeys = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const k of it) out.push(k);
  return out;
};

/** The zip read by Info-ZIP's unzip, not by our code. */
const zipList = (file: string) => execFileSync('unzip', ['-Z1', file]).toString('utf8').trim().split('\n');
const zipRead = (file: string, name: string) => execFileSync('unzip', ['-p', file, name], { maxBuffer: 256 * 1024 * 1024 });

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'filigrane-evidence-'));
  tsa = await startTimeStampAuthority();
  const watermarked = await embed(await syntheticPhoto(31), generateKey());
  marked = await sharp(watermarked.image).jpeg({ quality: 92 }).toBuffer();
  site = await serveSite({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
    '/': { type: 'text/html; charset=utf-8', body: '<!doctype html><html><head><title>Copy</title></head><body><h1>A story</h1><img src="/img/marked.jpg"></body></html>' },
    '/img/marked.jpg': { type: 'image/jpeg', body: marked },
  });
  hooks = await serveSite({
    '/hook': (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hookBodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204).end();
      });
    },
  });
  server = await startTestServer({ plugins: ['crawler', evidencePlugin], env: { TSA_URL: tsa.url, CHROMIUM_PATH: join(dir, 'no-chromium'), EVIDENCE_AUTO_CAPTURE_DELAY_SECONDS: '2' } });
  alice = await server.createAccount('alice');
  const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${alice.apiKey}` } })).arrayBuffer());
  const reg = await alice.call('PUT', '/api/v4/media/alice/photo.png', { body: encodeLmk(watermarked.registration, der), headers: { 'content-type': 'application/lmk' } });
  if (reg.status !== 201) throw new Error(reg.text);
});

test.after.always(async () => {
  await server?.close();
  await site?.close();
  await hooks?.close();
  await tsa?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a crawled copy: automatic and asked-for packs, read back with unzip and warcio, verified by openssl and the CLI; bad input and isolation', async (t) => {
  const bob = await server.createAccount('bob');
  t.deepEqual((await alice.call('PATCH', '/api/v4/evidence/settings/', { json: { auto_capture: true } })).json, { auto_capture: true });
  const hook = await alice.call('POST', '/api/v4/account/webhooks/', { json: { url: hooks.url('/hook'), events: ['evidence.captured'] } });
  t.is(hook.status, 201, hook.text);

  // The crawl finds the watermarked copy: match.created asks for the automatic pack.
  const crawl = await alice.call('POST', '/api/v3/crawling/sessions/', { json: { url: site.url('/'), download_delay: 0 } });
  t.is(crawl.status, 201, crawl.text);
  await eventually('the crawl', async () => ['done', 'failed'].includes((await alice.call('GET', `/api/v3/crawling/sessions/${crawl.json.id}/`)).json.state), 90_000);
  const matches = (await alice.call('GET', '/api/v4/matches/')).json.results as { id: string; watermarked: boolean; page: { url: string; image: { url: string } } }[];
  t.is(matches.length, 1);
  const match = matches[0]!;
  t.true(match.watermarked);
  await server.drainJobs();
  const auto = await eventually('the automatic pack', async () => {
    const list = (await alice.call('GET', '/api/v4/evidence/')).json.results as { automatic: boolean; status: string }[];
    return list.find((p) => p.automatic && p.status !== 'pending');
  }, 90_000);
  t.like(auto, { automatic: true, status: 'complete', matches: [match.id] });
  t.true((auto as unknown as { contents: { crawl_records: number } }).contents.crawl_records >= 1, 'the automatic pack waited for the crawl\'s records');

  // Asked for: 202, then complete.
  const askedAt = Date.now();
  const asked = await alice.call('POST', '/api/v4/evidence/', { json: { matches: [match.id] } });
  t.is(asked.status, 202, asked.text);
  t.like(asked.json, { status: 'pending', matches: [match.id], automatic: false, sha256: null, download: null });
  await server.drainJobs();
  const builtIn = Date.now() - askedAt;
  const pack = (await alice.call('GET', `/api/v4/evidence/${asked.json.id}/`)).json;
  t.like(pack, { id: asked.json.id, status: 'complete', error: null });
  t.is(pack.contents.screenshots, 0);
  t.regex(pack.contents.screenshot_missing, /Chromium was not found/);
  t.true(pack.contents.crawl_records >= 1, 'the crawl\'s own records are in');
  t.truthy(pack.contents.time_stamp?.time);
  const res = await fetch(pack.download, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/wacz');
  const wacz = Buffer.from(await res.arrayBuffer());
  t.is(sha256(wacz), pack.sha256);
  t.is(wacz.length, pack.size);
  t.log(`pack of one crawled page: ${wacz.length} bytes, ${builtIn} ms from the request to complete`);
  const file = join(dir, 'pack.wacz');
  writeFileSync(file, wacz);

  // Read back with unzip: every listed file has its hash and size; nothing unlisted.
  const names = zipList(file);
  const datapackage = zipRead(file, 'datapackage.json');
  const dp = JSON.parse(datapackage.toString('utf8')) as { wacz_version: string; resources: { path: string; hash: string; bytes: number }[] };
  t.is(dp.wacz_version, '1.1.1');
  t.deepEqual(new Set(names), new Set([...dp.resources.map((r) => r.path), 'datapackage.json', 'datapackage-digest.json']));
  for (const r of dp.resources) {
    const data = zipRead(file, r.path);
    t.is(`sha256:${sha256(data)}`, r.hash, r.path);
    t.is(data.length, r.bytes, r.path);
  }
  for (const p of ['archive/crawl.warc.gz', 'archive/capture.warc.gz', 'indexes/index.cdxj', 'pages/pages.jsonl', 'evidence/facts.json']) t.true(names.includes(p), p);

  // The WARCs, with warcio: the crawl's response of the image is the image served; the capture's too.
  const crawled = await warcRecords(zipRead(file, 'archive/crawl.warc.gz'));
  const crawledImage = crawled.find((r) => r.type === 'response' && r.url === match.page.image.url);
  t.truthy(crawledImage);
  t.true(crawledImage!.payload.equals(marked));
  t.truthy(crawled.find((r) => r.type === 'response' && r.url === match.page.url));
  const captured = await warcRecords(zipRead(file, 'archive/capture.warc.gz'));
  t.is(captured[0]!.type, 'warcinfo');
  t.true(captured.find((r) => r.type === 'response' && r.url === match.page.image.url)!.payload.equals(marked));
  t.regex(captured.find((r) => r.type === 'response' && r.url === match.page.url)!.payload.toString('utf8'), /A story/);

  // The facts: URLs, dates, site, media path, verdict and fixed threshold; no p-value.
  const facts = JSON.parse(zipRead(file, 'evidence/facts.json').toString('utf8'));
  const f = facts.matches[0];
  t.like(f, { id: match.id, page_url: match.page.url, image_url: match.page.image.url, media: { path: '/alice/photo.png' }, watermark: { verdict: 'watermarked', threshold: 1e-6 } });
  t.like(f.screenshot, { file: null });
  t.regex(f.screenshot.reason, /Chromium was not found/);
  t.false(/"p_?value"|"log10/i.test(JSON.stringify(facts)), 'no p-value in the facts');
  const thumbnail = zipRead(file, f.media.thumbnail);
  const served = Buffer.from(await (await fetch(`${server.url}/api/v4/media-files/${f.media.id}/thumbnail`, { headers: { authorization: `Token ${alice.apiKey}` } })).arrayBuffer());
  t.true(thumbnail.equals(served), 'the registered thumbnail');

  // The time stamp, by openssl against the test CA; the signature by openssl with the published key (no auth).
  const digest = JSON.parse(zipRead(file, 'datapackage-digest.json').toString('utf8'));
  t.is(digest.hash, `sha256:${sha256(datapackage)}`);
  writeFileSync(join(dir, 'datapackage.json'), datapackage);
  writeFileSync(join(dir, 'stamp.tsr'), Buffer.from(digest.signedData.timeStamp, 'base64'));
  const tsVerify = spawnSync('openssl', ['ts', '-verify', '-data', join(dir, 'datapackage.json'), '-in', join(dir, 'stamp.tsr'), '-CAfile', tsa.caFile, '-untrusted', tsa.tsaCertFile], { encoding: 'utf8' });
  t.is(tsVerify.status, 0, tsVerify.stderr);
  t.regex(tsVerify.stdout, /Verification: OK/);
  const keys = await server.call('GET', '/api/v4/evidence/keys/');
  t.is(keys.status, 200);
  t.is(keys.json.results.length, 1);
  writeFileSync(join(dir, 'key.pem'), keys.json.results[0].public_key);
  writeFileSync(join(dir, 'sig.der'), Buffer.from(digest.signedData.signature, 'base64'));
  const dgst = spawnSync('openssl', ['dgst', '-sha256', '-verify', join(dir, 'key.pem'), '-signature', join(dir, 'sig.der'), join(dir, 'datapackage.json')], { encoding: 'utf8' });
  t.regex(dgst.stdout, /Verified OK/);

  // The CLI: verified; one flipped byte of a file inside: not verified, exit 1.
  const ok = spawnSync(process.execPath, [CLI, 'evidence', 'verify', file, '--key', join(dir, 'key.pem'), '--tsa-ca', tsa.caFile], { encoding: 'utf8', timeout: 60_000 });
  t.is(ok.status, 0, ok.stdout + ok.stderr);
  t.regex(ok.stdout, /verified/);
  const at = wacz.indexOf(Buffer.from('"verdict": "watermarked"'));
  t.true(at > 0);
  const tampered = Buffer.from(wacz);
  tampered[at + 13] = 'W'.charCodeAt(0);
  writeFileSync(join(dir, 'tampered.wacz'), tampered);
  const bad = spawnSync(process.execPath, [CLI, 'evidence', 'verify', join(dir, 'tampered.wacz')], { encoding: 'utf8', timeout: 60_000 });
  t.is(bad.status, 1, bad.stdout + bad.stderr);
  t.regex(bad.stdout, /FAIL file evidence\/facts\.json/);

  // evidence.captured reached the webhook endpoint.
  await eventually('the webhook', async () => hookBodies.some((b) => b.includes(asked.json.id)), 30_000);
  const event = JSON.parse(hookBodies.find((b) => b.includes(asked.json.id))!);
  t.like(event, { type: 'evidence.captured' });
  t.like(event.data, { id: asked.json.id, status: 'complete', sha256: pack.sha256, match_ids: [match.id] });

  // GraphQL, camelCase.
  const gql = await alice.call('POST', '/graphql', { json: { query: `{ evidencePack(id: "${pack.id}") { id status sha256 matchIds timeStamp { time } crawlRecords capturedResources keyId } }` } });
  t.like(gql.json.data.evidencePack, { id: pack.id, status: 'complete', sha256: pack.sha256, matchIds: [match.id] });
  // What the pack holds, as REST's contents says it.
  const { crawl_records, captured_resources, key_id } = pack.contents;
  t.true(crawl_records > 0 && captured_resources > 0 && /^[0-9a-f]{16}$/.test(key_id), JSON.stringify(pack.contents));
  t.like(gql.json.data.evidencePack, { crawlRecords: crawl_records, capturedResources: captured_resources, keyId: key_id });
  const packCount = await alice.call('POST', '/graphql', { json: { query: '{ evidencePackCount }' } });
  t.is(packCount.json.data?.evidencePackCount, (await alice.call('GET', '/api/v4/evidence/')).json.count, packCount.text);

  // Bad input: the spec's error body.
  for (const body of [{ matches: [] }, { matches: ['abc'] }, { matches: 'x' }, { matches: [match.id, match.id] }, { matches: Array.from({ length: 21 }, (_, i) => String(i + 1)) }, { matches: [match.id], extra: 1 }, ['x'], { matches: ['99999999'] }]) {
    const r = await alice.call('POST', '/api/v4/evidence/', { json: body });
    t.is(r.status, 400, JSON.stringify(body));
    t.like(r.json, { status_code: 400, code: 'invalid' });
  }
  t.is((await alice.call('GET', '/api/v4/evidence/not-a-uuid/')).status, 404);
  t.like((await alice.call('PATCH', '/api/v4/evidence/settings/', { json: { auto_capture: 'yes' } })).json, { status_code: 400 });

  // Isolation: bob sees nothing of alice's, cannot pack her match.
  t.deepEqual((await bob.call('GET', '/api/v4/evidence/')).json.results, []);
  t.is((await bob.call('GET', `/api/v4/evidence/${pack.id}/`)).status, 404);
  t.is((await bob.call('GET', `/api/v4/evidence/${pack.id}/download`)).status, 404);
  t.like((await bob.call('POST', '/api/v4/evidence/', { json: { matches: [match.id] } })).json, { status_code: 400 });
  t.like((await bob.call('POST', '/graphql', { json: { query: `{ evidencePack(id: "${pack.id}") { id } }` } })).json.errors[0], { extensions: { code: 'NOT_FOUND', status_code: 404 } });

  // Account deletion takes the packs and their files.
  const blobs = server.get<BlobStore>(TOKENS.BlobStore);
  const stored = await blobs.get(`evidence/${alice.id}/${pack.id}.wacz`);
  t.truthy(stored);
  // A pack whose file the store lost is a server fault of its own code (the key logged), not a generic 500.
  await blobs.delete(`evidence/${alice.id}/${pack.id}.wacz`);
  t.like((await alice.call('GET', `/api/v4/evidence/${pack.id}/download`)).json, { status_code: 500, code: 'file_missing' });
  await blobs.put(`evidence/${alice.id}/${pack.id}.wacz`, stored!);
  // The crawl's WARC gone: its records are a fault (the build fails and is retried), never a pack without them.
  const archive = server.get<CrawlArchive>(CRAWL_ARCHIVE);
  t.true((await archive.records(alice.id, [crawl.json.id], [site.url('/')])).length > 0);
  const warcKey = (await collectKeys(blobs.list(`crawler/${alice.id}`))).find((k) => k.endsWith('.warc.gz'))!;
  const warc = await blobs.get(warcKey);
  await blobs.delete(warcKey);
  await t.throwsAsync(archive.records(alice.id, [crawl.json.id], [site.url('/')]), { name: 'BlobMissingError', message: new RegExp(warcKey) });
  await blobs.put(warcKey, warc!);
  await server.get<AccountLifecycle>(TOKENS.AccountLifecycle).accountDeleted(alice.id);
  t.is(await blobs.get(`evidence/${alice.id}/${pack.id}.wacz`), null);
  t.deepEqual(await server.app.dataSource.query('SELECT id FROM evidence_packs WHERE account_id = $1', [alice.id]), []);
});
