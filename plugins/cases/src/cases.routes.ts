import { badRequest, created, file, noContent, ok, pageEnvelope, parsePage, queryString, type RouteContext, type RouteSpec } from '@filigrane/plugin-api';
import { CaseService, type RightsHolderDefaults } from './case.service.js';
import { CASE_STATES, type CaseState } from './case-states.js';
import { FieldReader, idParam, objectBody } from './case-input.js';
import { CASE_DETAIL_SCHEMA, CASE_SCHEMA, caseDetailView, caseView, NOTICE_SCHEMA, noticeView, pageOf, SETTINGS_SCHEMA } from './case-view.js';
import { NoticeService } from './notice.service.js';
import { noticeInput } from './notice-input.js';

const tags = ['cases'];
const cases = (ctx: RouteContext) => ctx.container.get(CaseService);
const notices = (ctx: RouteContext) => ctx.container.get(NoticeService);
const account = (ctx: RouteContext) => ctx.principal!.accountId;
const caseId = (ctx: RouteContext) => idParam(ctx.params.id);

async function detail(ctx: RouteContext, id: number) {
  const s = cases(ctx);
  const c = await s.get(account(ctx), id);
  const [matches, evidence, list, history] = await Promise.all([s.caseMatches(id), s.evidencePacks(id), notices(ctx).list(account(ctx), id), s.history(id)]);
  return caseDetailView(c, ctx.baseUrl, { matches, evidence, notices: list, history });
}

async function listView(ctx: RouteContext, rows: Awaited<ReturnType<CaseService['list']>>[0]) {
  const ids = await cases(ctx).matchIdsOf(rows.map((r) => r.id));
  return rows.map((r) => caseView(r, ctx.baseUrl, ids.get(r.id) ?? []));
}

function filters(ctx: RouteContext) {
  const state = queryString(ctx.query, 'state');
  if (state !== undefined && !(CASE_STATES as readonly string[]).includes(state)) throw badRequest('invalid_state', `state is one of ${CASE_STATES.join(', ')}.`);
  const site = queryString(ctx.query, 'site');
  if (site !== undefined && (site.length > 253 || /[\u0000-\u001f]/.test(site))) throw badRequest('invalid_site', 'site is a domain name.');
  return { state: state as CaseState | undefined, site };
}

const noteOf = (r: FieldReader) => r.text('note', { max: 2000, multiline: true });

const NOTICE_INPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['dmca', 'dsa'] },
    lang: { type: 'string', enum: ['fr', 'en'], description: 'Default: the account\'s language' },
    rights_holder: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' }, address: { type: 'string' }, phone: { type: 'string' } }, description: 'Default: /api/v4/cases/settings/, then the account\'s full name and e-mail' },
    signature: { type: 'string', description: 'Name of the signer (default: the rights holder\'s name)' },
    recipient: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } }, description: 'The host or service provider addressed' },
    explanation: { type: 'string', description: 'Why the content is illegal (default: a standard explanation)' },
  },
};

export const caseRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'GET',
    path: '/cases/',
    tags,
    formats: ['csv'],
    summary: 'The account\'s cases, newest first; `format=csv` exports every case for the filters',
    query: { state: { type: 'string', enum: [...CASE_STATES] }, site: { type: 'string', description: 'Cases of this site (domain)' } },
    responses: { 200: { schema: pageOf(CASE_SCHEMA) } },
    async handler(ctx) {
      const f = filters(ctx);
      if (queryString(ctx.query, 'format') === 'csv') {
        const results = [];
        for (let offset = 0; ; offset += 1000) {
          const [rows] = await cases(ctx).list(account(ctx), f, offset, 1000);
          results.push(...(await listView(ctx, rows)));
          if (rows.length < 1000) break;
        }
        return ok({ results });
      }
      const page = parsePage(ctx);
      const [rows, total] = await cases(ctx).list(account(ctx), f, page.offset, page.pageSize);
      return ok(pageEnvelope(ctx, page, total, await listView(ctx, rows)));
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/cases/',
    tags,
    summary: 'Open a case from matches reviewed as infringing (each in no other case that is not closed)',
    requestSchema: { type: 'object', required: ['match_ids'], properties: { match_ids: { type: 'array', items: { type: 'string' }, minItems: 1 }, title: { type: 'string' }, note: { type: 'string' } } },
    responses: { 201: { schema: CASE_DETAIL_SCHEMA } },
    async handler(ctx) {
      const r = new FieldReader(objectBody(ctx.body), ['match_ids', 'title', 'note']);
      const matchIds = r.matchIds('match_ids');
      const title = r.text('title', { max: 200 });
      const note = noteOf(r);
      r.done();
      const c = await cases(ctx).create(ctx.principal!, { matchIds: matchIds!, title, note });
      return created(await detail(ctx, c.id));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/cases/settings/',
    tags,
    summary: 'Case settings: automatic grouping by site, the rights holder named in notices',
    responses: { 200: { schema: SETTINGS_SCHEMA } },
    handler: async (ctx) => ok(await cases(ctx).settings(account(ctx))),
  },
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/cases/settings/',
    tags,
    summary: 'Change the case settings',
    requestSchema: SETTINGS_SCHEMA,
    responses: { 200: { schema: SETTINGS_SCHEMA } },
    async handler(ctx) {
      const b = objectBody(ctx.body);
      const r = new FieldReader(b, ['auto_group', 'rights_holder']);
      const autoGroup = r.boolean('auto_group');
      const holder: RightsHolderDefaults | null | undefined = b.rights_holder === null ? null : r.rightsHolder('rights_holder');
      r.done();
      return ok(await cases(ctx).updateSettings(account(ctx), { auto_group: autoGroup, rights_holder: holder }));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/cases/:id/',
    tags,
    summary: 'One case: its matches, evidence packs, notices and history',
    responses: { 200: { schema: CASE_DETAIL_SCHEMA } },
    handler: async (ctx) => ok(await detail(ctx, caseId(ctx))),
  },
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/cases/:id/',
    tags,
    summary: 'Rename a case',
    requestSchema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
    responses: { 200: { schema: CASE_DETAIL_SCHEMA } },
    async handler(ctx) {
      const r = new FieldReader(objectBody(ctx.body), ['title']);
      const title = r.text('title', { max: 200, required: true });
      r.done();
      await cases(ctx).rename(ctx.principal!, caseId(ctx), title!);
      return ok(await detail(ctx, caseId(ctx)));
    },
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/cases/:id/',
    tags,
    summary: 'Delete a case (refused, 409, once one of its notices was sent: close it instead)',
    responses: { 204: { description: 'Deleted' } },
    async handler(ctx) {
      const keys = await cases(ctx).remove(ctx.principal!, caseId(ctx));
      await notices(ctx).deleteFiles(keys);
      return noContent();
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/cases/:id/transitions/',
    tags,
    summary: 'Move a case: open -> resolved|closed; notice_sent -> resolved|closed; resolved -> open|closed (a resolution with resolved)',
    requestSchema: {
      type: 'object',
      required: ['state'],
      properties: { state: { type: 'string', enum: ['open', 'resolved', 'closed'] }, resolution: { type: 'string', enum: ['removed', 'licensed_afterwards', 'paid'] }, note: { type: 'string' } },
    },
    responses: { 200: { schema: CASE_DETAIL_SCHEMA } },
    async handler(ctx) {
      const b = objectBody(ctx.body);
      const r = new FieldReader(b, ['state', 'resolution', 'note']);
      const note = noteOf(r);
      r.done();
      await cases(ctx).transition(ctx.principal!, caseId(ctx), { state: b.state, resolution: b.resolution, note });
      return ok(await detail(ctx, caseId(ctx)));
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/cases/:id/matches/',
    tags,
    summary: 'Add matches reviewed as infringing to an open case',
    requestSchema: { type: 'object', required: ['match_ids'], properties: { match_ids: { type: 'array', items: { type: 'string' }, minItems: 1 }, note: { type: 'string' } } },
    responses: { 200: { schema: CASE_DETAIL_SCHEMA } },
    async handler(ctx) {
      const r = new FieldReader(objectBody(ctx.body), ['match_ids', 'note']);
      const matchIds = r.matchIds('match_ids');
      const note = noteOf(r);
      r.done();
      await cases(ctx).addMatches(ctx.principal!, caseId(ctx), matchIds!, note);
      return ok(await detail(ctx, caseId(ctx)));
    },
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/cases/:id/matches/:matchId/',
    tags,
    summary: 'Take a match out of a case',
    responses: { 200: { schema: CASE_DETAIL_SCHEMA } },
    async handler(ctx) {
      await cases(ctx).removeMatches(ctx.principal!, caseId(ctx), [ctx.params.matchId ?? '']);
      return ok(await detail(ctx, caseId(ctx)));
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/cases/:id/evidence/',
    tags,
    summary: 'Attach an evidence pack (`pack_id`), or capture one for the case\'s matches (`capture: true`)',
    requestSchema: { type: 'object', properties: { pack_id: { type: 'string' }, capture: { type: 'boolean' } } },
    responses: { 200: { schema: CASE_DETAIL_SCHEMA } },
    async handler(ctx) {
      const r = new FieldReader(objectBody(ctx.body), ['pack_id', 'capture']);
      const packId = r.text('pack_id', { max: 100 });
      const capture = r.boolean('capture');
      if ((packId === undefined) === !capture) r.fail('non_field_errors', 'invalid', 'Give either pack_id or capture: true.');
      r.done();
      await cases(ctx).attachEvidence(ctx.principal!, caseId(ctx), { packId, capture });
      return ok(await detail(ctx, caseId(ctx)));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/cases/:id/notices/',
    tags,
    summary: 'The case\'s notices',
    responses: { 200: { schema: pageOf(NOTICE_SCHEMA) } },
    async handler(ctx) {
      await cases(ctx).get(account(ctx), caseId(ctx));
      const page = parsePage(ctx);
      const all = await notices(ctx).list(account(ctx), caseId(ctx));
      return ok(pageEnvelope(ctx, page, all.length, all.slice(page.offset, page.offset + page.pageSize).map((n) => noticeView(n, ctx.baseUrl, false))));
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/cases/:id/notices/',
    tags,
    summary: 'Make a takedown notice for the case: `dmca` (17 U.S.C. § 512(c)(3)) or `dsa` (DSA art. 16), in fr or en, as text and PDF',
    requestSchema: NOTICE_INPUT_SCHEMA,
    responses: { 201: { schema: NOTICE_SCHEMA } },
    async handler(ctx) {
      const input = noticeInput(ctx.body);
      return created(noticeView(await notices(ctx).create(ctx.principal!, caseId(ctx), input), ctx.baseUrl));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/cases/:id/notices/:noticeId/',
    tags,
    summary: 'One notice, with its text and the facts it names',
    responses: { 200: { schema: NOTICE_SCHEMA } },
    handler: async (ctx) => ok(noticeView(await notices(ctx).get(account(ctx), caseId(ctx), idParam(ctx.params.noticeId)), ctx.baseUrl)),
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/cases/:id/notices/:noticeId/pdf/',
    tags,
    summary: 'The notice as PDF (as it was made)',
    responses: { 200: { files: ['application/pdf'] } },
    async handler(ctx) {
      const n = await notices(ctx).get(account(ctx), caseId(ctx), idParam(ctx.params.noticeId));
      return file(await notices(ctx).pdf(n), 'application/pdf', `${n.type}-notice-${n.id}.pdf`);
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/cases/:id/notices/:noticeId/text/',
    tags,
    summary: 'The notice as plain text (UTF-8)',
    responses: { 200: { files: ['text/plain'] } },
    async handler(ctx) {
      const n = await notices(ctx).get(account(ctx), caseId(ctx), idParam(ctx.params.noticeId));
      return file(Buffer.from(n.body, 'utf8'), 'text/plain; charset=utf-8', `${n.type}-notice-${n.id}.txt`);
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/cases/:id/notices/:noticeId/send/',
    tags,
    summary: 'Mail the notice (text, PDF attached) to `to`; the case moves to notice_sent. 503 when the server has no mail server or it refused',
    requestSchema: { type: 'object', required: ['to'], properties: { to: { type: 'string', format: 'email' }, note: { type: 'string' } } },
    responses: { 200: { schema: NOTICE_SCHEMA } },
    async handler(ctx) {
      const b = objectBody(ctx.body);
      const r = new FieldReader(b, ['to', 'note']);
      const to = r.email('to', b.to, true);
      const note = noteOf(r);
      r.done();
      return ok(noticeView(await notices(ctx).send(ctx.principal!, caseId(ctx), idParam(ctx.params.noticeId), to!, note), ctx.baseUrl));
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/cases/:id/notices/:noticeId/sent/',
    tags,
    summary: 'Record the notice as sent by other means (a host\'s form, a letter); the case moves to notice_sent',
    accepts: ['json', 'none'],
    requestSchema: { type: 'object', properties: { to: { type: 'string', description: 'Where it was sent (an address, a form\'s URL)' }, note: { type: 'string' } } },
    responses: { 200: { schema: NOTICE_SCHEMA } },
    async handler(ctx) {
      const r = new FieldReader(ctx.body === undefined ? {} : objectBody(ctx.body), ['to', 'note']);
      const to = r.text('to', { max: 500 });
      const note = noteOf(r);
      r.done();
      return ok(noticeView(await notices(ctx).recordSent(ctx.principal!, caseId(ctx), idParam(ctx.params.noticeId), { to, note }), ctx.baseUrl));
    },
  },
];
