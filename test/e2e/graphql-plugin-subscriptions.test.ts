import test from 'ava';
import { createHash } from 'node:crypto';
import pg from 'pg';
import sharp from 'sharp';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestAccount, type TestServer, type TestSite } from '@filigrane/testing';
import { connect, disposeClients, settle, subscribe } from '../support/graphql-ws-client.js';

// Issue 21 item 6 and issue 23 item 6: the subscriptions plugins contribute (review's
// matchReviewed, cases' caseEvents, evidence's evidenceCaptured) with a real graphql-ws client
// over loopback, after the REST action that causes them; MatchEvent.match; @signedUrls on
// subscription results (a thumbnail and a WACZ opened with no Authorization header).

let server: TestServer;
let site: TestSite;
let alice: TestAccount;
let bob: TestAccount;
let mediaId: string;
const m: Record<string, string> = {};
/** Bob's subscriptions to every new field: he must receive nothing of Alice's. */
let bobSubs: ReturnType<typeof subscribe>[] = [];

const as = (a: TestAccount) => connect(server.url, { authorization: `Token ${a.apiKey}` }).client;
/** A file URL fetched as an <img> or a link would: no Authorization header, no cookie. */
const open = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
};

async function sighted(account: TestAccount, media: string | null, path: string): Promise<string> {
  const recorded = await server.get(MatchRecorder).record({
    sighting: { accountId: account.id, source: 'test', kind: 'web', image: {}, imageUrl: site.url('/img.jpg'), page: { url: site.url(path) }, credit: 'Studio' },
    // No media: a credit match (v3 only).
    ...(media === null ? { mediaId: null, kind: 'credit' as const } : { mediaId: Number(media) }),
    watermarked: true,
    exclusive: null,
    query: { width: 64, height: 48, format: 'jpeg' },
  });
  return String(recorded.id);
}

test.before(async () => {
  server = await startTestServer({ plugins: ['cases'], env: { CHROMIUM_PATH: '/nonexistent/chromium' } });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c04010' } }).png().toBuffer();
  const jpeg = await sharp(png).jpeg().toBuffer();
  site = await server.serveSite({
    '/story': { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Story</title><img src="/img.jpg">' },
    '/img.jpg': { type: 'image/jpeg', body: jpeg },
  });
  const put = await alice.call('PUT', '/api/v4/media/alice/port.png', { json: { url: `data:image/png;base64,${png.toString('base64')}` } });
  if (put.status !== 201) throw new Error(put.text);
  mediaId = new URL(put.json.thumbnail).pathname.split('/')[4]!;
  m.a1 = await sighted(alice, mediaId, '/story');
  m.a2 = await sighted(alice, mediaId, '/story?2');
  // Cases are opened by hand here (automatic grouping would open one on review).
  const settings = await alice.call('PATCH', '/api/v4/cases/settings/', { json: { auto_group: false } });
  if (settings.status !== 200) throw new Error(settings.text);
  const bobClient = as(bob);
  bobSubs = ['matchReviewed { matchId }', 'caseEvents { caseId }', 'evidenceCaptured { packId }', 'matchEvents { matchId match { id } }'].map((f) => subscribe(bobClient, `subscription { ${f} }`));
});
test.after.always(async () => {
  await disposeClients();
  await server?.close();
});

test.serial('matchReviewed: a review by REST arrives typed, with its match; signed URLs work in an <img>', async (t) => {
  const sub = subscribe(
    as(alice),
    `subscription Reviews @signedUrls { matchReviewed { eventId occurredAt matchId state previousState licenseId note automatic actor { type accountId applicationId } changedAt
       match { id page { url } review { state note } media { id thumbnail } } } }`,
  );
  const onlyLicensed = subscribe(as(alice), 'subscription { matchReviewed(states: [LICENSED]) { matchId } }');
  await settle();
  const res = await alice.call('PUT', `/api/v4/matches/${m.a1}/review/`, { json: { state: 'infringing', note: 'Used without a licence' } });
  t.is(res.status, 200, res.text);
  const { data, errors } = await sub.next(1);
  t.falsy(errors, JSON.stringify(errors));
  const e = data!.matchReviewed;
  t.like(e, { matchId: m.a1, state: 'INFRINGING', previousState: 'NEW', licenseId: null, note: 'Used without a licence', automatic: false, actor: { type: 'account', accountId: alice.id, applicationId: null } });
  t.regex(e.eventId, /^\d+$/);
  t.false(Number.isNaN(Date.parse(e.changedAt)));
  t.like(e.match, { id: m.a1, page: { url: site.url('/story') }, review: { state: 'INFRINGING', note: 'Used without a licence' }, media: { id: mediaId } });

  const thumbnail: string = e.match.media.thumbnail;
  t.regex(thumbnail, /[?&]signature=/, 'the subscription carried @signedUrls');
  const img = await open(thumbnail);
  t.is(img.status, 200);
  t.is(img.type, 'image/jpeg');
  t.is((await sharp(img.body).metadata()).format, 'jpeg');
  t.is((await open(thumbnail.split('?')[0]!)).status, 401, 'the plain URL still needs credentials');

  // The next change of the same match: the match is read again (no loader cache across events).
  t.is((await alice.call('PUT', `/api/v4/matches/${m.a1}/review/`, { json: { state: 'licensed' } })).status, 200);
  const again = (await sub.next(2)).data!.matchReviewed;
  t.like(again, { state: 'LICENSED', previousState: 'INFRINGING', match: { review: { state: 'LICENSED' } } });
  t.is((await onlyLicensed.next(1)).data!.matchReviewed.matchId, m.a1);
  t.is(onlyLicensed.results.length, 1, 'states narrowed the first change out');
  t.is((await alice.call('PUT', `/api/v4/matches/${m.a1}/review/`, { json: { state: 'infringing' } })).status, 200);
  t.is((await alice.call('PUT', `/api/v4/matches/${m.a2}/review/`, { json: { state: 'infringing' } })).status, 200);
  await sub.next(4);
  await server.drainJobs(); // the cases plugin has heard of these reviews before a case is opened
});

test.serial('caseEvents: opening and updating a case by REST arrive typed, with the case', async (t) => {
  const sub = subscribe(
    as(alice),
    `subscription { caseEvents { eventId kind occurredAt caseId title site state resolution matchIds
       change { action fromState toState note actor { type accountId } matchIds }
       case { id title state matchCount matches { id pageUrl } history { action } } } }`,
  );
  await settle();
  const opened = await alice.call('POST', '/api/v4/cases/', { json: { match_ids: [m.a1], title: 'Copies on the loopback site', note: 'First copy' } });
  t.is(opened.status, 201, opened.text);
  const caseId = String(opened.json.id);
  const only = subscribe(as(alice), 'subscription C($id: ID) { caseEvents(caseId: $id, kinds: [UPDATED]) { caseId change { action } } }', { id: caseId });
  const first = await sub.next(1);
  t.falsy(first.errors, JSON.stringify(first.errors));
  t.like(first.data!.caseEvents, {
    kind: 'OPENED', caseId, title: 'Copies on the loopback site', state: 'open', resolution: null, matchIds: [m.a1],
    change: { action: 'opened', fromState: null, toState: 'open', note: 'First copy', actor: { type: 'account', accountId: alice.id }, matchIds: [m.a1] },
    case: { id: caseId, state: 'open', matchCount: 1, matches: [{ id: m.a1, pageUrl: site.url('/story') }] },
  });
  await settle();

  const added = await alice.call('POST', `/api/v4/cases/${caseId}/matches/`, { json: { match_ids: [m.a2] } });
  t.is(added.status, 200, added.text);
  const second = (await sub.next(2)).data!.caseEvents;
  t.like(second, { kind: 'UPDATED', caseId, matchIds: [m.a1, m.a2], change: { action: 'matches_added', matchIds: [m.a2] }, case: { matchCount: 2 } });
  const moved = await alice.call('POST', `/api/v4/cases/${caseId}/transitions/`, { json: { state: 'resolved', resolution: 'removed', note: 'Taken down' } });
  t.is(moved.status, 200, moved.text);
  const third = (await sub.next(3)).data!.caseEvents;
  t.like(third, { kind: 'UPDATED', state: 'resolved', resolution: 'removed', change: { action: 'transition', fromState: 'open', toState: 'resolved', note: 'Taken down' }, case: { state: 'resolved' } });
  t.deepEqual(third.case.history.map((h: { action: string }) => h.action), ['opened', 'matches_added', 'transition']);
  t.deepEqual((await only.next(2)).data!.caseEvents, { caseId, change: { action: 'transition' } });
  t.is(only.results[0]!.data!.caseEvents.change.action, 'matches_added');
});

test.serial('evidenceCaptured: a pack asked for by REST arrives when built; its signed WACZ is the one hashed', async (t) => {
  const sub = subscribe(as(alice), 'subscription @signedUrls { evidenceCaptured { eventId occurredAt packId status sha256 size matchIds url error pack { id status sha256 size matchIds downloadUrl } } }');
  await settle();
  const asked = await alice.call('POST', '/api/v4/evidence/', { json: { matches: [m.a2] } });
  t.is(asked.status, 202, asked.text);
  const { data, errors } = await sub.next(1, 60_000);
  t.falsy(errors, JSON.stringify(errors));
  const e = data!.evidenceCaptured;
  t.like(e, { packId: asked.json.id, status: 'complete', matchIds: [m.a2], error: null, url: `${server.url}/api/v4/evidence/${asked.json.id}/` });
  t.regex(e.sha256, /^[0-9a-f]{64}$/);
  t.true(e.size > 0);
  t.like(e.pack, { id: e.packId, status: 'complete', sha256: e.sha256, size: e.size, matchIds: [m.a2] });
  const wacz = await open(e.pack.downloadUrl);
  t.is(wacz.status, 200, 'the signed download opens without credentials');
  t.is(createHash('sha256').update(wacz.body).digest('hex'), e.sha256);
  t.is(wacz.body.length, e.size);
});

test.serial('MatchEvent.match resolves the match (null once deleted); another account receives nothing', async (t) => {
  const sub = subscribe(as(alice), 'subscription @signedUrls { matchEvents(kinds: [CREATED]) { matchId match { id url page { url } media { thumbnail } } } }');
  await settle();
  const id = await sighted(alice, mediaId, '/story?3');
  const { data, errors } = await sub.next(1);
  t.falsy(errors, JSON.stringify(errors));
  t.like(data!.matchEvents, { matchId: id, match: { id, url: `${server.url}/api/v4/matches/${id}/`, page: { url: site.url('/story?3') } } });
  t.is((await open(data!.matchEvents.match.media.thumbnail)).status, 200);

  // An event whose match is gone by the time it is delivered (written as another process would).
  const other = new pg.Client({ connectionString: server.databaseUrl });
  await other.connect();
  t.teardown(() => other.end());
  await other.query('INSERT INTO event_outbox (account_id, type, data, occurred_at) VALUES ($1, $2, $3, now())', [alice.id, 'match.created', JSON.stringify({ id: 987654321, kind: 'web', source: 'test' })]);
  const gone = await sub.next(2);
  t.falsy(gone.errors, JSON.stringify(gone.errors));
  t.deepEqual(gone.data!.matchEvents, { matchId: '987654321', match: null });

  // Bob's connection is live (his own match reaches him) and saw none of Alice's events.
  const bobs = await sighted(bob, null, '/bob');
  t.is((await bobSubs[3]!.next(1)).data!.matchEvents.matchId, bobs);
  await settle();
  t.deepEqual(bobSubs.map((s) => s.results.length), [0, 0, 0, 1], 'bob saw none of alice\'s events');
  t.deepEqual(bobSubs.map((s) => s.error), [null, null, null, null]);
});
