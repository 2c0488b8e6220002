import test from 'ava';
import { parse } from 'csv-parse/sync';
import { eventually, startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { casesPlugin } from '@filigrane/plugin-cases';
import { register, sighted } from './support/fixtures.js';

// Cases through real HTTP: grouping by site (automatic, on a match marked infringing) and by hand,
// states and their history, refusals with the spec's error body, CSV, GraphQL, isolation.
let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;
const m: Record<string, string> = {};
/** What the account's webhook endpoint received. */
const hooks: { type: string; data: Record<string, any>; seq: number }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The review plugin's REST API, as a user reviews. */
async function review(a: TestAccount, ids: string[], state: string): Promise<void> {
  for (const id of ids) {
    const res = await a.call('PUT', `/api/v4/matches/${id}/review/`, { json: { state } });
    if (res.status !== 200) throw new Error(res.text);
  }
}

test.before(async () => {
  server = await startTestServer({ plugins: [casesPlugin], clock: new Date('2026-11-20T10:00:00Z') });
  alice = await server.createAccount('alice');
  bob = await server.createAccount('bob');
  const receiver = await server.serveSite({
    '/hook': (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        // Deliveries are independent jobs and may arrive in any order; the message id carries the
        // outbox id (msg_evt<id>_<endpoint>), which is the order the events were produced in.
        const seq = Number(/^msg_evt(\d+)_/.exec(String(req.headers['webhook-id']))?.[1] ?? NaN);
        hooks.push({ ...JSON.parse(body), seq });
        res.writeHead(204).end();
      });
    },
  });
  const endpoint = await alice.call('POST', '/api/v4/account/webhooks/', { json: { url: receiver.url('/hook'), events: ['case.opened', 'case.updated'] } });
  if (endpoint.status !== 201) throw new Error(endpoint.text);
  const photo = await register(alice, '/reportage/port.png', '#aa2200');
  const seen = new Date('2026-11-18T08:30:00Z');
  m.a1 = await sighted(server, alice, photo, 'https://www.copies.example/story-1', 'https://www.copies.example/img/1.jpg', seen);
  m.a2 = await sighted(server, alice, photo, 'https://www.copies.example/story-2', 'https://www.copies.example/img/2.jpg', seen);
  m.b1 = await sighted(server, alice, photo, 'https://blog.other.example/post', 'https://blog.other.example/p.jpg', seen);
  m.c1 = await sighted(server, alice, photo, 'https://licensed.example/page', 'https://licensed.example/i.jpg', seen);
  const bobPhoto = await register(bob, '/b.png', '#0022aa');
  m.bob = await sighted(server, bob, bobPhoto, 'https://www.copies.example/bob', 'https://www.copies.example/bob.jpg', seen);
});
test.after.always(async () => server?.close());

test.serial('a match marked infringing opens its site\'s case; the next one on that site joins it', async (t) => {
  await review(alice, [m.a1!], 'infringing');
  await server.drainJobs();
  const list = await alice.call('GET', '/api/v4/cases/');
  t.is(list.status, 200, list.text);
  t.is(list.json.count, 1);
  const c = list.json.results[0];
  t.like(c, { state: 'open', resolution: null, site: 'copies.example', match_ids: [m.a1] });
  await review(alice, [m.a2!], 'infringing');
  await server.drainJobs();
  const detail = await alice.call('GET', `/api/v4/cases/${c.id}/`);
  t.deepEqual(detail.json.match_ids, [m.a1, m.a2]);
  t.deepEqual(detail.json.history.map((h: { action: string }) => h.action), ['opened', 'matches_added']);
  t.like(detail.json.history[0], { to_state: 'open', actor: { type: 'system' } });
  t.like(detail.json.matches[0], { id: m.a1, page_url: 'https://www.copies.example/story-1', image_url: 'https://www.copies.example/img/1.jpg' });

  // A match no longer infringing leaves the open case, recorded.
  await review(alice, [m.a2!], 'licensed');
  await server.drainJobs();
  const after = await alice.call('GET', `/api/v4/cases/${c.id}/`);
  t.deepEqual(after.json.match_ids, [m.a1]);
  t.like(after.json.history.at(-1), { action: 'matches_removed', match_ids: [m.a2] });
});

test.serial('a case by hand: only infringing matches of the account, each in one case at a time', async (t) => {
  await alice.call('PATCH', '/api/v4/cases/settings/', { json: { auto_group: false } });
  t.deepEqual((await alice.call('GET', '/api/v4/cases/settings/')).json, { auto_group: false, rights_holder: null });
  await review(alice, [m.b1!], 'infringing');
  await server.drainJobs();
  t.is((await alice.call('GET', '/api/v4/cases/?site=other.example')).json.count, 0, 'auto_group off: no case opened');

  const notInfringing = await alice.call('POST', '/api/v4/cases/', { json: { match_ids: [m.b1, m.c1] } });
  t.is(notInfringing.status, 409);
  t.like(notInfringing.json, { status_code: 409, code: 'not_infringing' });
  t.regex(notInfringing.json.details, new RegExp(`${m.c1} \\(new\\)`));
  const foreign = await alice.call('POST', '/api/v4/cases/', { json: { match_ids: [m.bob] } });
  t.like(foreign.json, { status_code: 400, code: 'unknown_matches' }, 'another account\'s match is unknown');
  const taken = await alice.call('POST', '/api/v4/cases/', { json: { match_ids: [m.a1] } });
  t.like(taken.json, { status_code: 409, code: 'match_in_other_case' });
  for (const body of [{ match_ids: [] }, { match_ids: ['1 OR 1=1'] }, { match_ids: [m.b1], title: 'x\u0000y' }, { match_ids: [m.b1], title: 'x\ud800y' }, { match_ids: [m.b1], extra: 1 }, []]) {
    const bad = await alice.call('POST', '/api/v4/cases/', { json: body });
    t.is(bad.status, 400, JSON.stringify(body));
    t.is(bad.json.status_code, 400);
  }

  const made = await alice.call('POST', '/api/v4/cases/', { json: { match_ids: [m.b1], title: 'Blog « other »', note: 'Seen by Marie' } });
  t.is(made.status, 201, made.text);
  t.like(made.json, { title: 'Blog « other »', site: 'other.example', state: 'open', match_ids: [m.b1] });
  t.like(made.json.history[0], { action: 'opened', note: 'Seen by Marie', actor: { type: 'account', account_id: alice.id } });
});

test.serial('transitions: refused when invalid (409/400), each recorded with time, actor and note', async (t) => {
  const [c] = (await alice.call('GET', '/api/v4/cases/?site=other.example')).json.results;
  const move = (body: unknown) => alice.call('POST', `/api/v4/cases/${c.id}/transitions/`, { json: body });
  t.like((await move({ state: 'notice_sent' })).json, { status_code: 409, code: 'invalid_transition' });
  t.like((await move({ state: 'resolved' })).json, { status_code: 400, code: 'invalid_resolution' });
  t.like((await move({ state: 'resolved', resolution: 'bribed' })).json, { status_code: 400, code: 'invalid_resolution' });
  t.like((await move({ state: 'closed', resolution: 'paid' })).json, { status_code: 400, code: 'invalid_resolution' });
  t.like((await move({ state: 'lost' })).json, { status_code: 400, code: 'invalid_state' });
  server.clock.advance(3_600_000);
  const resolved = await move({ state: 'resolved', resolution: 'licensed_afterwards', note: 'They bought a licence' });
  t.is(resolved.status, 200, resolved.text);
  t.like(resolved.json, { state: 'resolved', resolution: 'licensed_afterwards' });
  t.like(resolved.json.history.at(-1), {
    action: 'transition', from_state: 'open', to_state: 'resolved', resolution: 'licensed_afterwards', note: 'They bought a licence', at: '2026-11-20T11:00:00.000Z',
    actor: { type: 'account', account_id: alice.id },
  });
  t.like((await alice.call('POST', `/api/v4/cases/${c.id}/matches/`, { json: { match_ids: [m.b1] } })).json, { status_code: 409, code: 'case_not_active' });
  t.like((await move({ state: 'open', note: 'It is back' })).json, { state: 'open', resolution: null });
  t.like((await move({ state: 'closed' })).json, { state: 'closed' });
  t.like((await move({ state: 'open' })).json, { status_code: 409, code: 'invalid_transition', details: 'A closed case cannot change state.' });
  // A closed case is final: no evidence is captured or attached to it any more (nothing is asked of the evidence plugin).
  const packsBefore = (await alice.call('GET', '/api/v4/evidence/')).json.count;
  t.like((await alice.call('POST', `/api/v4/cases/${c.id}/evidence/`, { json: { capture: true } })).json, { status_code: 409, code: 'case_not_active' });
  t.like((await alice.call('POST', `/api/v4/cases/${c.id}/evidence/`, { json: { pack_id: '00000000-0000-4000-8000-000000000000' } })).json, { status_code: 409, code: 'case_not_active' });
  t.is((await alice.call('GET', '/api/v4/evidence/')).json.count, packsBefore, 'no pack captured for a closed case');
  t.false((await alice.call('GET', `/api/v4/cases/${c.id}/`)).json.history.some((h: { action: string }) => h.action === 'evidence_added'));
  // Closed: its match may join a new case.
  t.is((await alice.call('POST', '/api/v4/cases/', { json: { match_ids: [m.b1] } })).status, 201);
});

test.serial('CSV of the cases and GraphQL show the same cases', async (t) => {
  const csv = await alice.call('GET', '/api/v4/cases/?format=csv');
  t.is(csv.status, 200);
  t.regex(String(csv.headers.get('content-type')), /text\/csv/);
  const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
  const list = (await alice.call('GET', '/api/v4/cases/')).json;
  t.is(rows.length, list.count);
  t.deepEqual(rows.map((r) => [r.id, r.state, r.site, r.match_ids]), list.results.map((c: { id: string; state: string; site: string; match_ids: string[] }) => [c.id, c.state, c.site ?? '', c.match_ids.join(',')]));
  t.truthy(rows[0]!.url && rows[0]!.created && 'resolution' in rows[0]!);

  // The counts of REST's list envelope, with and without a filter.
  const counts = await alice.call('POST', '/graphql', { json: { query: '{ all: caseCount closed: caseCount(state: "closed") }' } });
  t.deepEqual(counts.json.data, { all: list.count, closed: (await alice.call('GET', '/api/v4/cases/?state=closed')).json.count }, counts.text);
  const gql = await alice.call('POST', '/graphql', { json: { query: '{ cases(state: "closed") { id title state resolution matchCount history { action fromState toState note actor { type accountId } } } }' } });
  t.is(gql.status, 200, gql.text);
  t.falsy(gql.json.errors, JSON.stringify(gql.json.errors));
  const closed = gql.json.data.cases[0];
  t.like(closed, { state: 'closed', matchCount: 1 });
  t.deepEqual(closed.history.map((h: { action: string }) => h.action), ['opened', 'transition', 'transition', 'transition']);
  t.like(closed.history[1], { fromState: 'open', toState: 'resolved', note: 'They bought a licence', actor: { type: 'account', accountId: alice.id } });
  const settings = await alice.call('POST', '/graphql', { json: { query: 'mutation { updateCaseSettings(autoGroup: true, rightsHolder: { name: "Studio Ørsted", email: "rights@orsted.example" }) { autoGroup rightsHolder { name email } } }' } });
  t.deepEqual(settings.json.data?.updateCaseSettings, { autoGroup: true, rightsHolder: { name: 'Studio Ørsted', email: 'rights@orsted.example' } }, settings.text);
  t.like((await alice.call('GET', '/api/v4/cases/settings/')).json, { auto_group: true, rights_holder: { name: 'Studio Ørsted' } });
  const renamed = await alice.call('POST', '/graphql', { json: { query: `mutation { updateCase(id: "${closed.id}", title: "Archive") { title history { action } } }` } });
  t.like(renamed.json.data?.updateCase, { title: 'Archive' });
  const bad = await alice.call('POST', '/graphql', { json: { query: 'mutation { transitionCase(id: "999999", state: "closed") { id } }' } });
  t.is(bad.json.errors[0].extensions.code, 'NOT_FOUND');
});

test.serial('case.opened and case.updated reach the account\'s webhook, opened first, with what changed', async (t) => {
  await server.drainJobs();
  const arrived = await eventually('the case events', () => hooks.length >= 8 && hooks);
  t.true(arrived.every((e) => Number.isInteger(e.seq)), 'every delivery names its outbox event');
  const events = [...arrived].sort((a, b) => a.seq - b.seq);
  t.is(events[0]!.type, 'case.opened');
  t.like(events[0]!.data, { site: 'copies.example', state: 'open', match_ids: [m.a1], change: { action: 'opened', actor: { type: 'system' } } });
  const transition = events.find((e) => e.data.change.action === 'transition' && e.data.change.to_state === 'resolved');
  t.like(transition?.data, { state: 'resolved', resolution: 'licensed_afterwards', change: { from_state: 'open', note: 'They bought a licence', actor: { type: 'account', account_id: alice.id } } });
  t.true(events.every((e) => e.type === 'case.opened' || e.type === 'case.updated'));
  t.is(events.filter((e) => e.type === 'case.opened').length, 3, 'three cases opened');
  for (const id of new Set(events.map((e) => e.data.id))) t.is(events.find((e) => e.data.id === id)!.type, 'case.opened', `case ${id}: opened first`);
  const bad = await alice.call('POST', '/api/v4/account/webhooks/', { json: { url: 'http://127.0.0.1:9/x', events: ['case.closed'] } });
  t.like(bad.json, { status_code: 400, code: 'invalid' });
});

test.serial('one account never sees another\'s cases', async (t) => {
  const [c] = (await alice.call('GET', '/api/v4/cases/')).json.results;
  t.is((await bob.call('GET', '/api/v4/cases/')).json.count, 0);
  for (const [method, path, json] of [
    ['GET', `/api/v4/cases/${c.id}/`, undefined],
    ['PATCH', `/api/v4/cases/${c.id}/`, { title: 'mine' }],
    ['POST', `/api/v4/cases/${c.id}/transitions/`, { state: 'closed' }],
    ['POST', `/api/v4/cases/${c.id}/matches/`, { match_ids: [m.bob] }],
    ['GET', `/api/v4/cases/${c.id}/notices/`, undefined],
    ['DELETE', `/api/v4/cases/${c.id}/`, undefined],
  ] as const) {
    const res = await bob.call(method, path, json ? { json } : {});
    t.is(res.status, 404, `${method} ${path}`);
    t.like(res.json, { status_code: 404, code: 'not_found' });
  }
  const gql = await bob.call('POST', '/graphql', { json: { query: `{ case(id: "${c.id}") { id } }` } });
  t.is(gql.json.errors[0].extensions.code, 'NOT_FOUND');
  t.is((await alice.call('GET', `/api/v4/cases/${c.id}/`)).status, 200, 'still there');
});

test.serial('a match deleted with its media: a notice for its case says so, not that it is "new"', async (t) => {
  await review(bob, [m.bob!], 'infringing');
  await server.drainJobs();
  const [c] = (await bob.call('GET', '/api/v4/cases/')).json.results;
  t.deepEqual(c.match_ids, [m.bob]);
  t.is((await bob.call('DELETE', `/api/v4/media/${bob.username}/b.png`)).status, 204);
  t.is((await bob.call('GET', `/api/v4/matches/${m.bob}/`)).status, 404, 'the match went with its media');
  const notice = await bob.call('POST', `/api/v4/cases/${c.id}/notices/`, { json: { type: 'dmca' } });
  t.is(notice.status, 409, notice.text);
  t.like(notice.json, { status_code: 409, code: 'not_infringing' });
  t.regex(notice.json.details, new RegExp(`${m.bob} \\(deleted\\)`));
  t.notRegex(notice.json.details, /\(new\)/);
  // It can be taken out of the case.
  t.is((await bob.call('DELETE', `/api/v4/cases/${c.id}/matches/${m.bob}/`)).status, 200);
});

test.serial('case titles and the rights holder printed on notices refuse invisible formatting characters (bidi overrides...), like other labels', async (t) => {
  const [c] = (await alice.call('GET', '/api/v4/cases/')).json.results;
  const title = await alice.call('PATCH', `/api/v4/cases/${c.id}/`, { json: { title: 'Case \u202Eeno' } });
  t.is(title.status, 400, title.text);
  t.deepEqual(title.json.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`), ['title:invalid_character']);
  const holder = await alice.call('PATCH', '/api/v4/cases/settings/', { json: { rights_holder: { name: 'Studio\u2066 X' } } });
  t.is(holder.status, 400, holder.text);
  t.is(holder.json.errors[0].code, 'invalid_character', holder.text);
  t.is((await alice.call('GET', `/api/v4/cases/${c.id}/`)).json.title, c.title, 'unchanged');
  const fine = await alice.call('PATCH', `/api/v4/cases/${c.id}/`, { json: { title: '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 case' } });
  t.is(fine.status, 200, fine.text);
});
