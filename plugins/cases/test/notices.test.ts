import test from 'ava';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { TOKENS, type AccountLifecycle, type BlobStore } from '@filigrane/plugin-api';
import { eventually, startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { casesPlugin } from '@filigrane/plugin-cases';
import { register, sighted } from './support/fixtures.js';

// Takedown notices: made in the account's language, read back from the PDF with poppler's
// pdftotext (a tool we did not write), mailed through a real SMTP server on loopback and parsed
// back with mailparser; sending moves the case to notice_sent.
let server: TestServer;
let smtp: SMTPServer;
let alice: TestAccount;
let bob: TestAccount;
let caseId: string;
/** The work's registration day, as the media API shows it. */
let registered: string;
const received: { to: string[]; mail: ParsedMail }[] = [];
const REFUSED = 'refused@host.example';
const tmp = mkdtempSync(join(tmpdir(), 'notices-'));

/** The review plugin's REST API, as a user reviews. */
async function review(a: TestAccount, ids: string[], state: string): Promise<void> {
  for (const id of ids) {
    const res = await a.call('PUT', `/api/v4/matches/${id}/review/`, { json: { state } });
    if (res.status !== 200) throw new Error(res.text);
  }
}
const pdfText = (pdf: Buffer) => {
  const file = join(tmp, `${createHash('sha1').update(pdf).digest('hex')}.pdf`);
  writeFileSync(file, pdf);
  // -raw: text in content order, lines as drawn.
  return execFileSync('pdftotext', ['-enc', 'UTF-8', '-raw', file, '-'], { encoding: 'utf8' });
};

test.before(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _s, cb) {
      if (address.address === REFUSED) return cb(Object.assign(new Error('550 mailbox unavailable'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream).then((mail) => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail });
        cb();
      }, cb);
    },
  });
  await new Promise<void>((ok) => smtp.listen(0, '127.0.0.1', ok));
  const port = (smtp.server.address() as AddressInfo).port;
  server = await startTestServer({
    plugins: [casesPlugin],
    clock: new Date('2026-11-20T10:00:00Z'),
    // No Chromium (the pack says so; screenshots are the evidence plugin's tests): a lean capture.
    env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Filigrane <notices@filigrane.test>', CHROMIUM_PATH: join(tmp, 'no-chromium') },
  });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
  const photo = await register(alice, '/reportage/Été à Nîmes.png', '#aa2200');
  registered = (await alice.call('GET', `/api/v4/media/alice/reportage/${encodeURIComponent('Été à Nîmes.png')}`)).json.created.slice(0, 10);
  const seen = new Date('2026-11-18T08:30:00Z');
  const ids = [
    await sighted(server, alice, photo, 'https://www.copies.example/story-1', 'https://cdn.copies.example/img/1.jpg', seen),
    await sighted(server, alice, photo, 'https://www.copies.example/story-2', 'https://cdn.copies.example/img/2.jpg', seen),
  ];
  await review(alice, ids, 'infringing');
  await server.drainJobs();
  caseId = (await alice.call('GET', '/api/v4/cases/')).json.results[0].id;
});
test.after.always(async () => {
  await server?.close();
  await new Promise<void>((ok) => (smtp ? smtp.close(() => ok()) : ok()));
  rmSync(tmp, { recursive: true, force: true });
});

const flat = (s: string) => s.replace(/\s+/g, ' ');
/** A file answer's bytes (the test kit's call reads text). */
async function download(a: TestAccount, path: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Token ${a.apiKey}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

test.serial('evidence packs: captured for the case, or made elsewhere for one of its matches, carried with their hash', async (t) => {
  const asked = await alice.call('POST', `/api/v4/cases/${caseId}/evidence/`, { json: { capture: true } });
  t.is(asked.status, 200, asked.text);
  t.is(asked.json.evidence.length, 1);
  const packId = asked.json.evidence[0].pack_id;
  t.like((await alice.call('POST', `/api/v4/cases/${caseId}/evidence/`, { json: { pack_id: 'no-such-pack' } })).json, { status_code: 400, code: 'unknown_pack' });
  t.like((await bob.call('POST', `/api/v4/cases/${caseId}/evidence/`, { json: { pack_id: packId } })).json, { status_code: 404 });
  await server.drainJobs();
  const c = (await alice.call('GET', `/api/v4/cases/${caseId}/`)).json;
  const pack = (await alice.call('GET', `/api/v4/evidence/${packId}/`)).json;
  t.like(c.evidence[0], { pack_id: packId, status: 'complete', sha256: pack.sha256 }, JSON.stringify(pack));
  t.regex(c.evidence[0].sha256, /^[0-9a-f]{64}$/);
  t.deepEqual([...c.evidence[0].match_ids].sort(), [...c.match_ids].sort());
  t.like(c.history.at(-1), { action: 'evidence_added', pack_id: packId });

  // A pack asked for through the evidence API, of one of the case's matches: it joins the case when built.
  const other = await alice.call('POST', '/api/v4/evidence/', { json: { matches: [c.match_ids[0]] } });
  t.is(other.status, 202, other.text);
  await server.drainJobs();
  const joined = await eventually('the pack in the case', async () => {
    const v = (await alice.call('GET', `/api/v4/cases/${caseId}/`)).json;
    return v.evidence.length === 2 && v;
  });
  t.like(joined.evidence.find((e: { pack_id: string }) => e.pack_id === other.json.id), { status: 'complete', match_ids: [c.match_ids[0]] });
  t.like(joined.history.at(-1), { action: 'evidence_added', pack_id: other.json.id, actor: { type: 'system' } });
});

let caseView: { evidence: { pack_id: string; sha256: string; match_ids: string[] }[] };
/** The pack captured for the whole case. */
const packOf = () => caseView.evidence.find((e) => e.match_ids.length === 2)!;

test.serial('a DMCA notice in English names the work, the copies and the statements of § 512(c)(3); PDF and text agree', async (t) => {
  caseView = (await alice.call('GET', `/api/v4/cases/${caseId}/`)).json;
  const res = await alice.call('POST', `/api/v4/cases/${caseId}/notices/`, {
    json: { type: 'dmca', lang: 'en', rights_holder: { name: 'Agence Lumière SARL', email: 'rights@lumiere.example', address: '12 rue de la Paix, 75002 Paris' }, signature: 'Élodie Łukasiewicz', recipient: { name: 'Copies Inc. DMCA agent' } },
  });
  t.is(res.status, 201, res.text);
  t.like(res.json, { type: 'dmca', lang: 'en', sent_at: null });
  const pdf = await download(alice, `/api/v4/cases/${caseId}/notices/${res.json.id}/pdf/`);
  t.is(pdf.status, 200);
  t.is(pdf.type, 'application/pdf');
  t.is(createHash('sha256').update(pdf.bytes).digest('hex'), res.json.pdf_sha256);
  const text = flat(pdfText(pdf.bytes));
  for (const needle of [
    'DMCA takedown notice',
    '17 U.S.C. § 512(c)(3)',
    `/alice/reportage/Été à Nîmes.png, registered with Filigrane on ${registered}`,
    'https://www.copies.example/story-1',
    'https://cdn.copies.example/img/1.jpg',
    'https://www.copies.example/story-2',
    'First seen 2026-11-18 08:30 UTC',
    `Evidence pack ${packOf().pack_id}`,
    `SHA-256 ${packOf().sha256}`,
    'Agence Lumière SARL',
    'rights@lumiere.example',
    '12 rue de la Paix, 75002 Paris',
    'I have a good faith belief that use of the material in the manner complained of is not authorized by the copyright owner, its agent, or the law.',
    'under penalty of perjury, that the information in this notification is accurate',
    'authorized to act on behalf of Agence Lumière SARL',
    '/s/ Élodie Łukasiewicz',
    'Copies Inc. DMCA agent',
  ]) {
    t.true(text.includes(needle), `PDF lacks: ${needle}\n${text}`);
  }
  const txt = await alice.call('GET', `/api/v4/cases/${caseId}/notices/${res.json.id}/text/`);
  t.regex(String(txt.headers.get('content-type')), /^text\/plain; charset=utf-8/);
  t.true(flat(txt.text).includes('under penalty of perjury'));
  t.true(txt.text.includes('Page: https://www.copies.example/story-1'));
});

test.serial('a DSA article 16 notice in the account\'s language (French): explanation, exact URLs, name and e-mail, good-faith statement', async (t) => {
  t.is((await alice.call('POST', '/api/v4/account/settings/', { json: { lang: 'fr' } })).status, 200);
  await alice.call('PATCH', '/api/v4/cases/settings/', { json: { rights_holder: { name: 'Agence Lumière SARL', email: 'droits@lumiere.example' } } });
  const res = await alice.call('POST', `/api/v4/cases/${caseId}/notices/`, { json: { type: 'dsa' } });
  t.is(res.status, 201, res.text);
  t.like(res.json, { type: 'dsa', lang: 'fr', facts: { rights_holder: { name: 'Agence Lumière SARL', email: 'droits@lumiere.example' }, signer: 'Agence Lumière SARL' } });
  const text = flat(pdfText((await download(alice, `/api/v4/cases/${caseId}/notices/${res.json.id}/pdf/`)).bytes));
  for (const needle of [
    'Notification de contenu illicite',
    'article 16 du règlement (UE) 2022/2065',
    'Œuvre(s) protégée(s)',
    `enregistrée auprès de Filigrane le ${registered}`,
    'Emplacement électronique exact du contenu illicite (URL)',
    'https://www.copies.example/story-1',
    'https://cdn.copies.example/img/2.jpg',
    'Raisons pour lesquelles le contenu est illicite',
    'sans son autorisation',
    'Nom : Agence Lumière SARL'.replace(' :', ':'),
    'Courriel: droits@lumiere.example',
    'Je confirme penser, de bonne foi, que les informations et allégations contenues dans la présente notification sont exactes et complètes',
  ]) {
    t.true(text.includes(needle), `PDF lacks: ${needle}\n${text}`);
  }
});

test.serial('bad notice requests get the spec\'s error body; another account sees no notice', async (t) => {
  for (const body of [{}, { type: 'cease-and-desist' }, { type: 'dmca', lang: 'de' }, { type: 'dmca', rights_holder: { email: 'not an address' } }, { type: 'dmca', signature: 'a\u0000b' }, { type: 'dmca', rights_holder: 'me' }]) {
    const res = await alice.call('POST', `/api/v4/cases/${caseId}/notices/`, { json: body });
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.json.status_code, 400);
    t.truthy(res.json.code && res.json.details);
  }
  const [n] = (await alice.call('GET', `/api/v4/cases/${caseId}/notices/`)).json.results;
  for (const path of [`/api/v4/cases/${caseId}/notices/`, `/api/v4/cases/${caseId}/notices/${n.id}/`, `/api/v4/cases/${caseId}/notices/${n.id}/pdf/`, `/api/v4/cases/${caseId}/notices/${n.id}/text/`]) {
    t.like((await bob.call('GET', path)).json, { status_code: 404 }, path);
  }
  t.like((await bob.call('POST', `/api/v4/cases/${caseId}/notices/${n.id}/send/`, { json: { to: 'x@y.example' } })).json, { status_code: 404 });
  t.like((await bob.call('POST', `/api/v4/cases/${caseId}/notices/${n.id}/sent/`, { json: {} })).json, { status_code: 404 });
  t.like((await alice.call('POST', `/api/v4/cases/${caseId}/notices/${n.id}/send/`, { json: { to: 'nobody' } })).json, { status_code: 400, code: 'invalid' });
});

test.serial('sending by mail: the PDF attached, replies to the rights holder; the case moves to notice_sent; a refusal records nothing', async (t) => {
  const [dmca] = (await alice.call('GET', `/api/v4/cases/${caseId}/notices/`)).json.results;
  const refused = await alice.call('POST', `/api/v4/cases/${caseId}/notices/${dmca.id}/send/`, { json: { to: REFUSED } });
  t.is(refused.status, 503);
  t.is(refused.json.code, 'mail_failed');
  t.is((await alice.call('GET', `/api/v4/cases/${caseId}/`)).json.state, 'open');

  const sent = await alice.call('POST', `/api/v4/cases/${caseId}/notices/${dmca.id}/send/`, { json: { to: 'abuse@copies.example', note: 'To their abuse desk' } });
  t.is(sent.status, 200, sent.text);
  t.like(sent.json, { sent_to: 'abuse@copies.example', sent_via: 'mail', sent_at: '2026-11-20T10:00:00.000Z' });
  const mail = (await eventually('the mail', () => received.find((r) => r.to.includes('abuse@copies.example')))).mail;
  t.is(mail.subject, 'DMCA takedown notice: copies.example');
  t.is(mail.replyTo?.value[0]?.address, 'rights@lumiere.example');
  t.true(flat(mail.text ?? '').includes('under penalty of perjury'));
  const attachment = mail.attachments[0]!;
  t.is(attachment.contentType, 'application/pdf');
  t.is(createHash('sha256').update(attachment.content).digest('hex'), dmca.pdf_sha256, 'the PDF as made');
  t.true(flat(pdfText(attachment.content)).includes('https://www.copies.example/story-2'));

  const c = (await alice.call('GET', `/api/v4/cases/${caseId}/`)).json;
  t.like(c, { state: 'notice_sent', notice_count: 2, last_notice_sent: '2026-11-20T10:00:00.000Z' });
  t.like(c.history.at(-1), { action: 'notice_sent', from_state: 'open', to_state: 'notice_sent', notice_id: dmca.id, sent_to: 'abuse@copies.example', sent_via: 'mail', note: 'To their abuse desk' });
  t.like((await alice.call('DELETE', `/api/v4/cases/${caseId}/`)).json, { status_code: 409, code: 'case_has_sent_notices' });

  // The DSA one, sent through the host's web form, recorded by hand.
  const dsa = (await alice.call('GET', `/api/v4/cases/${caseId}/notices/`)).json.results[1];
  const recorded = await alice.call('POST', `/api/v4/cases/${caseId}/notices/${dsa.id}/sent/`, { json: { to: 'https://copies.example/report-form' } });
  t.like(recorded.json, { sent_via: 'manual', sent_to: 'https://copies.example/report-form' });

  // GraphQL gives what REST gives: the case's counts, each notice's author and facts, what each change touched.
  const rest = (await alice.call('GET', `/api/v4/cases/${caseId}/`)).json;
  const restNotice = (await alice.call('GET', `/api/v4/cases/${caseId}/notices/${dmca.id}/`)).json;
  const gql = await alice.call('POST', '/graphql', {
    json: {
      query: `{ case(id: "${caseId}") { matchIds evidenceCount noticeCount lastNoticeSent history { action noticeId type sentTo sentVia sha256 packId }
        notices { id actor { type accountId } facts { type lang signer rightsHolder { name email } works { mediaId path } copies { matchId pageUrl evidence { packId sha256 } } } } } }`,
    },
  });
  t.falsy(gql.json.errors, gql.text);
  const g = gql.json.data.case;
  t.deepEqual([g.matchIds, g.evidenceCount, g.noticeCount, g.lastNoticeSent], [rest.match_ids, rest.evidence_count, rest.notice_count, rest.last_notice_sent]);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const sentEntries = (h: any[]) => h.filter((e) => e.action === 'notice_sent');
  t.deepEqual(
    sentEntries(g.history).map((e: { noticeId: string; sentTo: string; sentVia: string }) => [e.noticeId, e.sentTo, e.sentVia]),
    sentEntries(rest.history).map((e: { notice_id: string; sent_to: string; sent_via: string }) => [e.notice_id, e.sent_to, e.sent_via]),
  );
  const added = g.history.find((e: { action: string }) => e.action === 'evidence_added');
  t.like(added, { sha256: rest.history.find((e: { action: string }) => e.action === 'evidence_added').sha256 });
  const gNotice = g.notices.find((n: { id: string }) => n.id === dmca.id);
  t.deepEqual(gNotice.actor, { type: restNotice.actor.type, accountId: restNotice.actor.account_id });
  const f = restNotice.facts;
  t.like(gNotice.facts, { type: f.type, lang: f.lang, signer: f.signer, rightsHolder: { name: f.rights_holder.name, email: f.rights_holder.email } });
  t.deepEqual(
    gNotice.facts.copies.map((c: { matchId: string; pageUrl: string; evidence: { packId: string; sha256: string }[] }) => [c.matchId, c.pageUrl, c.evidence.map((e) => e.sha256)]),
    f.copies.map((c: { match_id: string; page_url: string; evidence: { sha256: string }[] }) => [c.match_id, c.page_url, c.evidence.map((e) => e.sha256)]),
  );
  t.deepEqual(gNotice.facts.works.map((w: { mediaId: string }) => w.mediaId), f.works.map((w: { media_id: string }) => w.media_id));
});

test.serial('a match found licensed since is never named in a new notice', async (t) => {
  const c = (await alice.call('GET', `/api/v4/cases/${caseId}/`)).json;
  await review(alice, [c.match_ids[1]], 'licensed');
  await server.drainJobs();
  t.deepEqual((await alice.call('GET', `/api/v4/cases/${caseId}/`)).json.match_ids, c.match_ids, 'a notice_sent case keeps its matches');
  const res = await alice.call('POST', `/api/v4/cases/${caseId}/notices/`, { json: { type: 'dmca' } });
  t.is(res.status, 409);
  t.is(res.json.code, 'not_infringing');
});

test.serial('deleting the account deletes its cases, notices and their files', async (t) => {
  const notices = (await alice.call('GET', `/api/v4/cases/${caseId}/notices/`)).json.results;
  const keys = notices.map((n: { id: string }) => `cases/${alice.id}/notices/${n.id}.pdf`);
  const blobs = server.get<BlobStore>(TOKENS.BlobStore);
  t.truthy(await blobs.get(keys[0]));
  await server.get<AccountLifecycle>(TOKENS.AccountLifecycle).accountDeleted(alice.id);
  for (const key of keys) t.is(await blobs.get(key), null, key);
  t.is((await alice.call('GET', '/api/v4/cases/')).json.count, 0);
});
