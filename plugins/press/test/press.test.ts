import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import type { DataSource } from 'typeorm';
import { BlobStoreUnavailableError, contribute, definePlugin, EVENT_LISTENERS, TOKENS, type BlobStore, type DomainEvent, camelCaseKeys } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { PressAnalysisService, PressInboxService } from '@filigrane/plugin-press';
import { syntheticPhoto } from '@filigrane/vision';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { composeIssue, encryptPdf, pdfWithFlateBomb, pdfWithJavaScript, scannedPage } from './pdf-fixtures.js';

let server: TestServer;
let ops: { apiKey: string; id: number };
let alice: { apiKey: string; id: number };
let bob: { apiKey: string; id: number };
let carol: { apiKey: string; id: number };
let pdf: Buffer;
const inbox = mkdtempSync(join(tmpdir(), 'press-inbox-'));
const events: DomainEvent[] = [];
const eventRecorder = definePlugin({ id: 'event-recorder', contributions: [contribute(EVENT_LISTENERS, () => (e: DomainEvent) => void events.push(e))] });

/** Registers a watermarked copy of `photo` in the account; returns the watermarked image. */
async function registerMarked(key: string, path: string, photo: Buffer): Promise<Buffer> {
  const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${key}` } })).arrayBuffer());
  const result = await embed(photo, generateKey());
  const res = await server.call('PUT', `/api/v4/media${path}`, { key, body: encodeLmk(result.registration, der), headers: { 'content-type': 'application/lmk' } });
  if (res.status !== 201) throw new Error(res.text);
  return result.image;
}

function multipart(fields: Record<string, string>, file?: { name: string; data: Buffer; type: string }): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----press${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function poll(path: string, key: string, done = (j: { status: string }) => j.status === 'complete' || j.status === 'failed') {
  for (let i = 0; i < 240; i++) {
    const res = await server.call('GET', path, { key });
    if (done(res.json)) return res.json;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${path} never finished`);
}

test.before(async () => {
  server = await startTestServer({ plugins: ['press', eventRecorder], workers: true, env: { PRESS_INBOX_DIR: inbox } });
  ops = await server.createAccount('ops', { permissions: ['press:ingest'] });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
  carol = await server.createAccount('carol');
  for (const [key, flag] of [[alice.apiKey, 'notify_pdf'], [bob.apiKey, 'notify_pdf_weekly']] as const) {
    const res = await server.call('POST', '/api/v4/account/settings/', { key, json: { notifications: { [flag]: true } } });
    if (res.status !== 200) throw new Error(res.text);
  }
  const [pA, pB, pC] = await Promise.all([51, 52, 53].map((s) => syntheticPhoto(s)));
  const markedA = await registerMarked(alice.apiKey, '/alice/press/front.png', pA!);
  const markedB = await registerMarked(bob.apiKey, '/bob/sport.png', pB!);
  // Carol registered the same picture as Alice but does not track press.
  await server.call('PUT', '/api/v4/media/carol/front.png', { key: carol.apiKey, body: pA!, headers: { 'content-type': 'image/png' } });
  await server.call('PUT', '/api/v4/media/alice/press/unrelated.png', { key: alice.apiKey, body: pC!, headers: { 'content-type': 'image/png' } });
  pdf = await composeIssue({
    jpeg: await sharp(markedA).jpeg({ quality: 92 }).toBuffer(),
    png: await sharp(markedB).png().toBuffer(),
    cmyk: await sharp(await syntheticPhoto(54)).toColourspace('cmyk').jpeg().toBuffer(),
    scan: await scannedPage(await sharp(markedA).resize({ width: 600 }).toBuffer(), '© Alice Studio / Agence'),
    credits: { page1: '© Jean Dupont', page2: 'Photo : Claire Martin' },
  });
});
test.after.always(async () => server?.close());

let issueUrl: string;

test.serial('an operator ingests an issue; it is analysed page by page with a pollable status', async (t) => {
  const form = multipart({ name: 'Le Quotidien', date: '2026-11-20' }, { name: 'quotidien.pdf', data: pdf, type: 'application/pdf' });
  t.is((await server.call('POST', '/api/v3/press/issues/', { key: alice.apiKey, ...form })).status, 403, 'press:ingest is needed');
  const res = await server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, ...form });
  t.is(res.status, 201, res.text);
  t.like(res.json, { name: 'Le Quotidien', date: '2026-11-20', status: 'pending', filename: 'quotidien.pdf', origin: 'api' });
  issueUrl = new URL(res.json.url).pathname;
  const done = await poll(issueUrl, ops.apiKey);
  t.like(done, { status: 'complete', pages: { done: 4, total: 4 }, images_found: 5, error: null });
  // The events follow the status change (published after the commit): give them a moment.
  const processedOf = () => events.filter((e) => e.type === 'press.issue.processed' && (e.data as { id: number }).id === done.id);
  for (let i = 0; i < 100 && processedOf().length < 3; i++) await new Promise((r) => setTimeout(r, 100));
  const processed = processedOf();
  t.deepEqual(processed.map((e) => e.accountId).sort(), [ops.id, alice.id, bob.id].sort(), 'the accounts with matches and the one that ingested');
  const list = await server.call('GET', '/api/v3/press/issues/', { key: ops.apiKey });
  t.is(list.json.count, 1);
  t.is(list.json.results[0].id, done.id);
});

test.serial('press matches: page numbers, issue, the printed image with its credit, watermark found', async (t) => {
  const res = await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey });
  t.is(res.status, 200);
  const byPage = new Map<number, Record<string, any>>(res.json.results.map((m: Record<string, any>) => [m.page_number, m]));
  t.deepEqual([...byPage.keys()].sort(), [1, 3, 4], 'the front photo on pages 1 and 4, and in the scan of page 3');
  for (const m of byPage.values()) {
    t.like(m, { type: 'press', issue: { name: 'Le Quotidien', date: '2026-11-20' } });
    t.is(m.paths[0].path, '/alice/press/front.png');
  }
  t.true(byPage.get(1)!.watermarked, 'the printed JPEG carries the watermark');
  t.like(byPage.get(1)!.image, { type: 'press', format: 'jpeg', credit: '© Jean Dupont' });
  t.regex(byPage.get(3)!.image.credit ?? '', /Alice Studio/, 'credit read by OCR on the scan');
  const image = await fetch(byPage.get(1)!.image.url, { headers: { authorization: `Token ${alice.apiKey}` } });
  t.is(image.status, 200);
  t.is(image.headers.get('content-type'), 'image/jpeg');
  t.is((await fetch(byPage.get(1)!.image.url, { headers: { authorization: `Token ${carol.apiKey}` } })).status, 404, 'only for accounts it matched');
  const page = await server.call('GET', new URL(byPage.get(3)!.image.page_url).pathname, { key: alice.apiKey });
  t.like(page.json, { issue: { name: 'Le Quotidien', date: '2026-11-20' }, page_number: 3 });
  t.is((await server.call('GET', new URL(byPage.get(3)!.image.page_url).pathname, { key: carol.apiKey })).status, 404);

  t.is((await server.call('GET', '/api/v3/matches/press/?watermarked=false', { key: alice.apiKey })).json.results.every((m: { watermarked: boolean }) => !m.watermarked), true);
  t.is((await server.call('GET', '/api/v3/matches/press/?date_gte=2099-01-01', { key: alice.apiKey })).json.count, 0);

  const v4 = await server.call('GET', '/api/v4/matches/?site.name=Le%20Quotidien', { key: alice.apiKey });
  t.is(v4.json.count, 3);
  t.like(v4.json.results[0], { site: { name: 'Le Quotidien', domain: 'le-quotidien' }, page: { type: 'press' } });

  const credit = await server.call('GET', '/api/v3/matches/credit/', { key: alice.apiKey });
  t.true(credit.json.results.some((m: { credit: string }) => /Alice Studio/.test(m.credit)), 'a printed credit naming the account is a credit match');
});

test.serial('each account sees only its own media; accounts not tracking press get nothing', async (t) => {
  const bobs = await server.call('GET', '/api/v3/matches/press/', { key: bob.apiKey });
  t.is(bobs.json.count, 1);
  t.like(bobs.json.results[0], { page_number: 2, watermarked: true, paths: [{ path: '/bob/sport.png' }] });
  t.is(bobs.json.results[0].image.credit, 'Photo : Claire Martin');
  t.is((await server.call('GET', '/api/v3/matches/press/', { key: carol.apiKey })).json.count, 0);
  t.is((await server.call('GET', '/api/v4/matches/', { key: carol.apiKey })).json.count, 0);
});

test.serial('analysing the same issue again never gives a second match for the same image and page', async (t) => {
  const before = (await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey })).json.count;
  const db = server.app.container.get<DataSource>(TOKENS.DataSource);
  const id = Number(issueUrl.split('/').filter(Boolean).pop());
  await db.manager.update('PressIssue', { id }, { status: 'running' });
  await server.app.container.get(PressAnalysisService).process(id);
  t.is((await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey })).json.count, before);
  t.is((await server.call('GET', issueUrl, { key: ops.apiKey })).json.status, 'complete');
});

test.serial('an unexpected failure mid-analysis: analysis_error without the internal message; matches found before stay', async (t) => {
  const before = (await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey })).json.count;
  const db = server.app.container.get<DataSource>(TOKENS.DataSource);
  const id = Number(issueUrl.split('/').filter(Boolean).pop());
  await db.manager.update('PressIssue', { id }, { status: 'running' });
  // The database going away on page 2, as the pipeline reports it (a socket path, a driver's words).
  const pipeline = server.app.container.get<{ submit: (...a: unknown[]) => Promise<unknown> }>(TOKENS.MatchPipeline);
  const submit = pipeline.submit;
  pipeline.submit = async function (this: unknown, ...args: unknown[]) {
    if ((args[0] as { press?: { pageNumber: number } }).press?.pageNumber === 2) throw new Error('connect ECONNREFUSED /var/run/postgresql/.s.PGSQL.5432');
    return submit.apply(this, args);
  };
  try {
    await server.app.container.get(PressAnalysisService).process(id);
  } finally {
    pipeline.submit = submit;
  }
  const issue = (await server.call('GET', issueUrl, { key: ops.apiKey })).json;
  t.is(issue.status, 'failed');
  t.is(issue.error.code, 'analysis_error');
  t.regex(issue.error.details, /page 2/);
  t.false(/ECONNREFUSED|postgresql|PGSQL/.test(issue.error.details), issue.error.details);
  t.is((await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey })).json.count, before);
  await db.manager.update('PressIssue', { id }, { status: 'running' });
  await server.app.container.get(PressAnalysisService).process(id);
  t.is((await server.call('GET', issueUrl, { key: ops.apiKey })).json.status, 'complete');
});

test.serial('the same PDF ingested again: 409 naming the existing issue, no second issue, no second match', async (t) => {
  const before = (await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey })).json.count;
  const form = multipart({ name: 'Le Quotidien (again)', date: '2026-11-20' }, { name: 'copy.pdf', data: pdf, type: 'application/pdf' });
  const [a, b] = await Promise.all([
    server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, ...form }),
    server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, json: { url: `data:application/pdf;base64,${pdf.toString('base64')}`, name: 'Other name', date: '2026-11-21' } }),
  ]);
  for (const res of [a, b]) {
    t.is(res.status, 409, res.text);
    t.like(res.json, { status_code: 409, code: 'duplicate_issue' });
    t.true(String(res.json.details).includes(issueUrl), res.text);
    t.is(new URL(res.headers.get('content-location')!).pathname, issueUrl);
  }
  t.is((await server.call('GET', '/api/v3/press/issues/', { key: ops.apiKey })).json.count, 1);
  t.is((await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey })).json.count, before);
});

test.serial('a bad document fails with a reason; deleting an issue keeps the matches', async (t) => {
  const js = await pdfWithJavaScript();
  const res = await server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, json: { url: `data:application/pdf;base64,${js.toString('base64')}`, name: 'Bad', date: '2026-11-21' } });
  t.is(res.status, 201, res.text);
  const failed = await poll(new URL(res.json.url).pathname, ops.apiKey);
  t.like(failed, { status: 'failed', error: { code: 'pdf_javascript' } });
  const invalid = await server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, json: { url: 'data:text/plain;base64,aGVsbG8=', name: '', date: '2026-13-01' } });
  t.is(invalid.status, 400);
  t.deepEqual(invalid.json.errors.map((e: { field: string }) => e.field).sort(), ['date', 'name']);
  // The publication's name is shown to every account with a press match: no escape sequences, no bidi tricks.
  for (const name of ['Le\u001b[31m Monde', 'Le \u202EednoM', 'Le\u200BMonde']) {
    const spoof = await server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, json: { url: 'data:application/pdf;base64,JVBERi0=', name, date: '2026-11-21' } });
    t.is(spoof.status, 400, spoof.text);
    t.deepEqual(spoof.json.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`), ['name:invalid_character'], spoof.text);
  }

  t.is((await server.call('DELETE', issueUrl, { key: ops.apiKey })).status, 204);
  t.is((await server.call('GET', issueUrl, { key: ops.apiKey })).status, 404);
  t.is((await server.call('GET', '/api/v3/matches/press/', { key: alice.apiKey })).json.count, 3);
});

test.serial('document searches: asynchronous only, one match per media with its pages', async (t) => {
  const form = multipart({ sync: 'true' }, { name: 'doc.pdf', data: pdf, type: 'application/pdf' });
  const sync = await server.call('POST', '/api/v4/searches/', { key: alice.apiKey, ...form });
  t.is(sync.status, 400);
  t.is(sync.json.errors[0].code, 'sync_not_allowed');

  const res = await server.call('POST', '/api/v4/searches/', { key: alice.apiKey, ...multipart({}, { name: 'doc.pdf', data: pdf, type: 'application/pdf' }) });
  t.is(res.status, 201, res.text);
  t.like(res.json, { type: 'document', status: 'pending', name: 'doc.pdf' });
  const done = await poll(new URL(res.json.url).pathname, alice.apiKey);
  t.is(done.status, 'complete', JSON.stringify(done.error));
  t.is(done.matches.length, 1);
  t.like(done.matches[0], { type: 'user', watermarked: true, page_numbers: [1, 3, 4], image: { media_path: '/alice/press/front.png' } });
  // The event follows the stored outcome that the poll saw: wait for it, then count.
  for (let i = 0; i < 100 && !events.some((e) => e.type === 'search.completed' && (e.data as { id: string }).id === done.id); i++) await new Promise((r) => setTimeout(r, 100));
  const completions = events.filter((e) => e.type === 'search.completed' && (e.data as { id: string }).id === done.id);
  t.is(completions.length, 1, 'one search.completed per search');
  t.like(completions[0], { accountId: alice.id, data: { kind: 'document', type: 'document', status: 'complete', match_count: 1 } });

  // Carol did not track press, but may search her own document.
  const viaUri = await server.call('POST', '/api/v4/searches/', { key: carol.apiKey, json: { file: `data:application/pdf;base64,${pdf.toString('base64')}` } });
  t.is(viaUri.status, 201, viaUri.text);
  const carols = await poll(new URL(viaUri.json.url).pathname, carol.apiKey);
  t.deepEqual(carols.matches.map((m: { page_numbers: number[] }) => m.page_numbers), [[1, 3, 4]]);
  t.false(carols.matches[0].watermarked, 'Carol registered the unmarked picture');
});

test.serial('the inbox folder: a dropped PDF becomes an issue named from its file; a non-PDF is set aside', async (t) => {
  writeFileSync(join(inbox, 'Le Soir 2026-11-19.pdf'), await pdfWithJavaScript());
  writeFileSync(join(inbox, 'notes 2026-11-19.pdf'), 'not a pdf');
  const ids = await server.app.container.get(PressInboxService).scan();
  t.is(ids.length, 1);
  const issue = await poll(`/api/v3/press/issues/${ids[0]}/`, ops.apiKey);
  t.like(issue, { name: 'Le Soir', date: '2026-11-19', origin: 'inbox', filename: 'Le Soir 2026-11-19.pdf', status: 'failed', error: { code: 'pdf_javascript' } });
  t.true(readdirSync(join(inbox, '.done')).some((f) => f.endsWith('Le Soir 2026-11-19.pdf')));
  t.true(existsSync(join(inbox, '.rejected', 'notes 2026-11-19.pdf')));
  t.deepEqual(readdirSync(inbox).filter((f) => !f.startsWith('.')), []);
});

test.serial('GraphQL: ingest and follow an issue, press matches, document searches', async (t) => {
  const gql = async (key: string, query: string, variables: Record<string, unknown> = {}) =>
    (await server.call('POST', '/graphql', { key, json: { query, variables } })).json;
  const uri = `data:application/pdf;base64,${pdf.toString('base64')}`;
  const denied = await gql(alice.apiKey, 'mutation($u: String!) { ingestPressIssue(url: $u, name: "X", date: "2026-11-22") { id } }', { u: uri });
  t.is(denied.errors[0].extensions.apiCode, 'permission_denied');
  const ingested = await gql(ops.apiKey, 'mutation($u: String!) { ingestPressIssue(url: $u, name: "Le Quotidien", date: "2026-11-22") { id status } }', { u: uri });
  const id = ingested.data.ingestPressIssue.id as number;
  let status = '';
  for (let i = 0; i < 240 && status !== 'complete' && status !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const polled = await gql(ops.apiKey, 'query($id: Int!) { pressIssue(id: $id) { status pages { done total } } }', { id });
    status = polled.data.pressIssue?.status ?? JSON.stringify(polled);
  }
  t.is(status, 'complete');
  t.true((await gql(ops.apiKey, '{ pressIssues(first: 10) { nodes { id } } }')).data.pressIssues.nodes.some((i: { id: number }) => i.id === id));
  const press = await gql(alice.apiKey, '{ v3Matches(kind: "press", filter: { watermarked: { equals: true } }) { count results { type watermarked pageNumber issue { name date } paths { path } } } }');
  t.true(press.data.v3Matches.results.some((m: { issue: { date: string } }) => m.issue.date === '2026-11-22'));
  t.true(press.data.v3Matches.results.every((m: { watermarked: boolean; type: string }) => m.watermarked && m.type === 'press'));
  const search = await gql(bob.apiKey, 'mutation($u: String!) { documentSearch(url: $u, name: "mine") { id status url } }', { u: uri });
  t.like(search.data.documentSearch, { status: 'pending' });
  t.truthy(search.data.documentSearch.id);
  // Polled through GraphQL: typed document matches with every field of the REST ones (camelCase).
  const fields = `id type status name query { name searchPath filterMarked sync } error { code details }
    matches { id created type watermarked pageNumbers credits image { url type width height format thumbnail credit mediaPath mediaUrl metadata } }`;
  let found = search.data.documentSearch;
  for (let i = 0; i < 240 && (found.status === 'pending' || found.status === 'running'); i++) {
    await new Promise((r) => setTimeout(r, 250));
    found = (await gql(bob.apiKey, `query($id: String!) { search(id: $id) { ${fields} } }`, { id: search.data.documentSearch.id })).data.search;
  }
  const rest = (await server.call('GET', `/api/v4/searches/${found.id}/`, { key: bob.apiKey })).json;
  t.like(found, { type: 'document', status: 'complete', name: 'mine', query: { name: 'mine', searchPath: rest.query.search_path, sync: false }, error: null });
  t.true(found.matches.length > 0, JSON.stringify(rest));
  t.deepEqual(found.matches, camelCaseKeys(rest.matches));
  // A document that cannot be read: the stored search fails, its error a typed ApiErrorBody (REST's {code, details}).
  const broken = `data:application/pdf;base64,${Buffer.from('%PDF-1.7\nthis is not the rest of a PDF').toString('base64')}`;
  const failing = await gql(bob.apiKey, 'mutation($u: String!) { documentSearch(url: $u) { id status } }', { u: broken });
  let failed = failing.data.documentSearch;
  for (let i = 0; i < 240 && (failed.status === 'pending' || failed.status === 'running'); i++) {
    await new Promise((r) => setTimeout(r, 250));
    failed = (await gql(bob.apiKey, 'query($id: String!) { search(id: $id) { id status matches { id } error { statusCode code details errors { field } } } }', { id: failed.id })).data.search;
  }
  const restFailed = (await server.call('GET', `/api/v4/searches/${failed.id}/`, { key: bob.apiKey })).json;
  t.is(restFailed.status, 'failed', JSON.stringify(restFailed));
  t.deepEqual(failed, { id: restFailed.id, status: 'failed', matches: null, error: { statusCode: null, code: restFailed.error.code, details: restFailed.error.details, errors: [] } });
  t.true((await gql(ops.apiKey, 'mutation($id: Int!) { deletePressIssue(id: $id) }', { id })).data.deletePressIssue);
});

test.serial('an issue deleted while it is analysed: the analysis stops, nothing it stored after the delete is left', async (t) => {
  const analysis = server.app.container.get(PressAnalysisService);
  const pipeline = server.app.container.get<{ submit: (...a: unknown[]) => Promise<unknown> }>(TOKENS.MatchPipeline);
  const blobs = server.app.container.get<BlobStore>(TOKENS.BlobStore);
  const submit = pipeline.submit;
  const process = analysis.process;
  let url = '';
  const finished = new Promise<void>((resolve) => {
    analysis.process = async function (this: PressAnalysisService, id: number) {
      await process.call(this, id);
      if (url.endsWith(`/${id}/`)) resolve();
    };
  });
  // The operator deletes the issue while page 2 is being matched.
  pipeline.submit = async function (this: unknown, ...args: unknown[]) {
    if ((args[0] as { press?: { issueName: string; pageNumber: number } }).press?.issueName === 'Supprimé' && (args[0] as { press: { pageNumber: number } }).press.pageNumber === 2) {
      await server.call('DELETE', url, { key: ops.apiKey });
    }
    return submit.apply(this, args);
  };
  try {
    const res = await server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, json: { url: `data:application/pdf;base64,${Buffer.concat([pdf, Buffer.from('% deleted\n')]).toString('base64')}`, name: 'Supprimé', date: '2026-11-23' } });
    t.is(res.status, 201, res.text);
    url = new URL(res.json.url).pathname;
    await finished;
  } finally {
    pipeline.submit = submit;
    analysis.process = process;
  }
  t.is((await server.call('GET', url, { key: ops.apiKey })).status, 404);
  const matches = (await server.call('GET', '/api/v3/matches/press/?page_size=100', { key: alice.apiKey })).json.results.filter((m: { issue: { name: string } }) => m.issue.name === 'Supprimé');
  t.false(matches.some((m: { page_number: number }) => m.page_number > 2), 'no page after the delete was analysed');
  for (const m of matches) t.is(await blobs.get(new URL(m.image.url).pathname.replace(/^\/api\/v3\//, '')), null, 'no image left behind');
});

test.serial('an encrypted compression bomb (opens without a password) fails as the plain one does, in bounded memory', async (t) => {
  // 2 GiB of content stream in 2 MiB of Flate; the same file encrypted (AES-256, empty user password).
  const plain = await pdfWithFlateBomb('content', 2048);
  const encrypted = await encryptPdf(plain, 'AES-256');
  const ingest = async (bytes: Buffer, name: string) => {
    const res = await server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, json: { url: `data:application/pdf;base64,${bytes.toString('base64')}`, name, date: '2026-11-26' } });
    t.is(res.status, 201, res.text);
    return poll(new URL(res.json.url).pathname, ops.apiKey);
  };
  const refused = await ingest(plain, 'Bombe');
  t.like(refused, { status: 'failed', error: { code: 'pdf_too_complex' } }, JSON.stringify(refused));
  const rssBefore = process.memoryUsage().rss;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const sealed = await ingest(encrypted, 'Bombe chiffrée');
  t.is(sealed.status, 'failed');
  t.deepEqual(sealed.error, refused.error, 'the same error body');
  // pdf.js would have inflated the 2 GiB (the plain bomb took 2.3 GiB from 1 MiB before the prescan).
  const peak = process.resourceUsage().maxRSS * 1024;
  t.true(peak <= Math.max(peakBefore, rssBefore + 384 * 1024 * 1024), `peak RSS ${peak >> 20} MiB (before ${peakBefore >> 20} MiB, RSS ${rssBefore >> 20} MiB)`);
  const after = await server.call('GET', '/api/v4/account/', { key: alice.apiKey });
  t.is(after.status, 200, 'the server keeps serving');
});

test.serial('the file store failing at ingest leaves no issue behind: the same PDF goes in once the store is back', async (t) => {
  const blobs = server.app.container.get<BlobStore>(TOKENS.BlobStore);
  const put = blobs.put;
  const doc = Buffer.concat([pdf, Buffer.from('\n% store outage\n')]);
  const before = (await server.call('GET', '/api/v3/press/issues/', { key: ops.apiKey })).json.count;
  const ingest = () => server.call('POST', '/api/v3/press/issues/', { key: ops.apiKey, json: { url: `data:application/pdf;base64,${doc.toString('base64')}`, name: 'Panne', date: '2026-11-27' } });
  blobs.put = async (key: string) => {
    throw new BlobStoreUnavailableError('put', `s3://bucket/${key}`, new Error('connect ECONNREFUSED 127.0.0.1:9000'));
  };
  let down;
  try {
    down = await ingest();
  } finally {
    blobs.put = put;
  }
  t.is(down.status, 503, down.text);
  t.is(down.json.code, 'blob_store_unavailable');
  t.is((await server.call('GET', '/api/v3/press/issues/', { key: ops.apiKey })).json.count, before, 'no issue left pending');
  const back = await ingest();
  t.is(back.status, 201, back.text);
  t.like(await poll(new URL(back.json.url).pathname, ops.apiKey), { status: 'complete' });
  t.is((await server.call('DELETE', new URL(back.json.url).pathname, { key: ops.apiKey })).status, 204);
});
