import {
  csvExport,
  noContent,
  notFound,
  ok,
  created,
  pageEnvelope,
  pageSchema,
  parsePage,
  queryString,
  validationError,
  wantsCsv,
  badRequest,
  type ErrorItem,
  type QueryValue,
  type RouteContext,
  type RouteSpec,
} from '@filigrane/plugin-api';
import { parseLicensee } from './licensee-input.js';
import { LicenseeService } from './licensee.service.js';
import { isMatchId, jsonObject, matchIds, reviewState, unknownFields } from './review-input.js';
import { ReviewStore, type ReviewListItem } from './review.service.js';
import {
  BULK_RESULT_SCHEMA,
  BULK_SCHEMA,
  CHANGE_SCHEMA,
  changeView,
  LICENSEE_CSV_COLUMNS,
  LICENSEE_INPUT_SCHEMA,
  LICENSEE_SCHEMA,
  licenseeView,
  REVIEW_CSV_COLUMNS,
  REVIEW_LIST_ITEM_SCHEMA,
  REVIEW_SCHEMA,
  reviewView,
  SET_STATE_SCHEMA,
} from './review.views.js';

const store = (ctx: RouteContext) => ctx.container.get(ReviewStore);
const licensees = (ctx: RouteContext) => ctx.container.get(LicenseeService);
const account = (ctx: RouteContext) => ctx.principal!.accountId;

function matchParam(ctx: RouteContext): string {
  if (!isMatchId(ctx.params.id)) throw notFound('No such match.');
  return ctx.params.id;
}

async function reviewOf(ctx: RouteContext, id: string) {
  const review = (await store(ctx).states(account(ctx), [id])).get(id);
  if (!review) throw notFound('No such match.');
  return reviewView(id, review);
}

/** state, note, license_id of a change (single or bulk). */
function parseChange(b: Record<string, unknown>, errors: ErrorItem[]) {
  const state = reviewState(b.state, errors);
  if (b.note !== undefined && b.note !== null && typeof b.note !== 'string') errors.push({ field: 'note', code: 'invalid', details: 'note is a string.' });
  if (b.license_id !== undefined && b.license_id !== null && typeof b.license_id !== 'string' && typeof b.license_id !== 'number') {
    errors.push({ field: 'license_id', code: 'invalid', details: 'license_id is a licensee id.' });
  }
  return { state, note: (b.note ?? undefined) as string | undefined, licenseId: b.license_id === undefined || b.license_id === null ? undefined : String(b.license_id) };
}

/** A bulk filter: the v4 list's query parameters as a JSON object (strings, lists of strings, numbers, booleans). */
function parseFilter(value: unknown, errors: ErrorItem[]): Record<string, QueryValue> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    errors.push({ field: 'filter', code: 'invalid', details: 'filter is an object of GET /api/v4/matches/ query parameters ({} selects every match).' });
    return undefined;
  }
  const out: Record<string, QueryValue> = Object.create(null) as Record<string, QueryValue>;
  for (const [k, v] of Object.entries(value)) {
    if (['page', 'page_size', 'cursor', 'format'].includes(k)) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v as string[];
    else errors.push({ field: `filter.${k}`.slice(0, 100), code: 'invalid', details: 'A filter value is a string, a number, a boolean or a list of strings.' });
  }
  return out;
}

const listItem = ({ ref, review }: ReviewListItem) => ({
  ...reviewView(ref.id, review),
  page_url: ref.pageUrl,
  image_url: ref.imageUrl,
  site_domain: ref.siteDomain,
  media_id: ref.mediaId,
});

export const reviewRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'GET',
    path: '/matches/:id/review/',
    summary: "A match's review state (new when nobody reviewed it)",
    responses: { 200: { schema: REVIEW_SCHEMA } },
    handler: async (ctx) => ok(await reviewOf(ctx, matchParam(ctx))),
  },
  {
    versions: ['v4'],
    method: 'PUT',
    path: '/matches/:id/review/',
    summary: "Sets a match's review state, with an optional note; recorded in its history and published as match.reviewed",
    requestSchema: SET_STATE_SCHEMA,
    responses: { 200: { schema: REVIEW_SCHEMA } },
    async handler(ctx) {
      const id = matchParam(ctx);
      const b = jsonObject(ctx.body);
      const errors: ErrorItem[] = [];
      unknownFields(b, ['state', 'note', 'license_id'], errors);
      const change = parseChange(b, errors);
      if (errors.length) throw validationError(errors);
      await store(ctx).setState(ctx.principal!, [id], change.state!, change.note, { licenseId: change.licenseId });
      return ok(await reviewOf(ctx, id));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/matches/:id/review/history/',
    summary: "A match's review history (audit trail), oldest first: state, previous state, note, who (account, OAuth application or licensee rule) and when",
    responses: { 200: { schema: pageSchema(CHANGE_SCHEMA) } },
    async handler(ctx) {
      const history = await store(ctx).history(account(ctx), matchParam(ctx));
      if (!history) throw notFound('No such match.');
      const page = parsePage(ctx);
      return ok(pageEnvelope(ctx, page, history.length, history.slice(page.offset, page.offset + page.pageSize).map(changeView)));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/matches/review/',
    formats: ['csv'],
    summary: 'Review states of the matches the filters of GET /api/v4/matches/ select (review_state included), in match id order; format=csv exports them all',
    query: { cursor: { type: 'string', description: 'The next page (from next)' } },
    responses: { 200: { schema: pageSchema(REVIEW_LIST_ITEM_SCHEMA) } },
    async handler(ctx) {
      const filters: Record<string, QueryValue> = { ...ctx.query };
      if (wantsCsv(ctx)) {
        // Parsed before the answer starts: a bad filter is a 400, not a broken download.
        await store(ctx).count(account(ctx), filters);
        const batches = (async function* () {
          for await (const items of store(ctx).listAll(account(ctx), filters)) yield items.map(listItem);
        })();
        return csvExport({ filename: 'match-reviews.csv', columns: REVIEW_CSV_COLUMNS, batches });
      }
      const cursor = queryString(ctx.query, 'cursor');
      if (cursor !== undefined && !isMatchId(cursor)) throw badRequest('invalid_cursor', 'cursor is the value the next link carries.');
      const size = parsePage(ctx).pageSize;
      const [count, page] = await Promise.all([store(ctx).count(account(ctx), filters), store(ctx).listPage(account(ctx), filters, cursor, size)]);
      const last = page.items[page.items.length - 1];
      const next = page.more && last ? new URL(ctx.url.toString()) : null;
      next?.searchParams.set('cursor', last!.ref.id);
      return ok({ count, next: next?.toString() ?? null, previous: null, results: page.items.map(listItem) });
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/matches/review/',
    summary: 'Sets the review state of many matches at once: by ids, or by any filter of GET /api/v4/matches/ (every match on one site...)',
    requestSchema: BULK_SCHEMA,
    responses: { 200: { schema: BULK_RESULT_SCHEMA } },
    async handler(ctx) {
      const b = jsonObject(ctx.body);
      const errors: ErrorItem[] = [];
      unknownFields(b, ['state', 'note', 'license_id', 'ids', 'filter'], errors);
      const change = parseChange(b, errors);
      if ((b.ids === undefined) === (b.filter === undefined)) errors.push({ field: 'non_field_errors', code: 'invalid', details: 'Give ids (a list of match ids) or filter (the match list filters), one of them.' });
      const ids = b.ids !== undefined ? matchIds(b.ids, errors) : undefined;
      const filter = b.filter !== undefined ? parseFilter(b.filter, errors) : undefined;
      if (filter && change.licenseId !== undefined) errors.push({ field: 'license_id', code: 'invalid', details: 'license_id goes with ids, not with a filter.' });
      if (errors.length) throw validationError(errors);
      const result = ids
        ? await store(ctx).setState(ctx.principal!, ids, change.state!, change.note, { licenseId: change.licenseId })
        : await store(ctx).setStateByFilter(ctx.principal!, filter!, change.state!, change.note);
      return ok({ state: change.state, ...result });
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/licensees/',
    formats: ['csv'],
    summary: 'Who may use the account\'s media: licensed sites, optionally restricted to a folder or media and to dates, with a contract reference',
    responses: { 200: { schema: pageSchema(LICENSEE_SCHEMA) } },
    async handler(ctx) {
      if (wantsCsv(ctx)) {
        const all = await licensees(ctx).all(account(ctx));
        return csvExport({ filename: 'licensees.csv', columns: LICENSEE_CSV_COLUMNS, batches: (async function* () { yield all.map(licenseeView); })() });
      }
      const page = parsePage(ctx);
      const { rows, count } = await licensees(ctx).list(account(ctx), page.offset, page.pageSize);
      return ok(pageEnvelope(ctx, page, count, rows.map(licenseeView)));
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/licensees/',
    summary: 'Adds a licensee; matches still new that it covers become licensed (a job for large accounts)',
    requestSchema: { ...LICENSEE_INPUT_SCHEMA, required: ['name', 'domain'] },
    responses: { 201: { schema: LICENSEE_SCHEMA } },
    async handler(ctx) {
      const licensee = licenseeView(await licensees(ctx).create(account(ctx), parseLicensee(ctx.body, false)));
      return created(licensee, `${ctx.baseUrl}/api/v4/licensees/${licensee.id}/`);
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/licensees/:id/',
    responses: { 200: { schema: LICENSEE_SCHEMA } },
    handler: async (ctx) => ok(licenseeView(await licensees(ctx).get(account(ctx), ctx.params.id))),
  },
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/licensees/:id/',
    summary: 'Changes a licensee; the rule is applied again to matches still new or licensed by a licensee (never to a decision a person made)',
    requestSchema: LICENSEE_INPUT_SCHEMA,
    responses: { 200: { schema: LICENSEE_SCHEMA } },
    handler: async (ctx) => ok(licenseeView(await licensees(ctx).update(account(ctx), ctx.params.id, parseLicensee(ctx.body, true)))),
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/licensees/:id/',
    summary: 'Removes a licensee; matches it had licensed go back to new unless another licensee covers them',
    responses: { 204: { description: 'Removed' } },
    async handler(ctx) {
      await licensees(ctx).remove(account(ctx), ctx.params.id);
      return noContent();
    },
  },
];
