import {
  badRequest, BlobMissingError, listPage, noContent, notFound, ok, parseDateFilters, streamed, TOKENS,
  type BlobStore, type RouteContext, type RouteSpec,
} from '@filigrane/core';
import { parseNewSession } from './crawl-settings.js';
import { batchView, CrawlService, sessionView } from './crawl.service.js';
import { BATCH_PAGE_SCHEMA, BATCH_SCHEMA, CTIME_QUERY, NEW_SESSION_SCHEMA, SESSION_PAGE_SCHEMA, SESSION_SCHEMA } from './crawling.schemas.js';

const V3 = ['v3'] as const;

const MAX_ID = 2_147_483_647;

/**
 * A session or batch id from the path: not digits is 400; digits beyond the integer column (which
 * PostgreSQL would refuse) name nothing that exists: 404, as any unknown id.
 */
function id(ctx: RouteContext, kind: 'session' | 'batch', name = 'id'): number {
  const raw = ctx.params[name] ?? '';
  if (!/^\d+$/.test(raw)) throw badRequest('invalid_id', `${name} must be a positive integer.`);
  const digits = raw.replace(/^0+/, '');
  if (digits.length > 10 || Number(digits) > MAX_ID) throw notFound(`No crawling ${kind} with this id.`);
  return Number(digits);
}

const service = (ctx: RouteContext) => ctx.container.get(CrawlService);
const account = (ctx: RouteContext) => ctx.principal!.accountId;

export const crawlingRoutes: RouteSpec[] = [
  {
    versions: [...V3], method: 'GET', path: '/crawling/sessions/',
    query: CTIME_QUERY, responses: { 200: { schema: SESSION_PAGE_SCHEMA } },
    summary: 'Crawling sessions, newest first; ctime, ctime_lt, ctime_lte, ctime_gt, ctime_gte filters',
    async handler(ctx) {
      const ctime = parseDateFilters(ctx.query, 'ctime');
      return ok(await listPage(ctx, (o, l) => service(ctx).list(account(ctx), ctime, o, l), (r) => sessionView(ctx.baseUrl, r), { withCount: false }));
    },
  },
  {
    versions: [...V3], method: 'POST', path: '/crawling/sessions/',
    requestSchema: NEW_SESSION_SCHEMA, responses: { 201: { schema: SESSION_SCHEMA } },
    summary: 'Create a session and queue its first crawl: 201 with the session',
    async handler(ctx) {
      const s = await service(ctx).create(account(ctx), parseNewSession(ctx.body));
      return { status: 201, body: sessionView(ctx.baseUrl, s) };
    },
  },
  {
    versions: [...V3], method: 'GET', path: '/crawling/sessions/:id/',
    responses: { 200: { schema: SESSION_SCHEMA } },
    async handler(ctx) {
      return ok(sessionView(ctx.baseUrl, await service(ctx).get(account(ctx), id(ctx, 'session'))));
    },
  },
  {
    versions: [...V3], method: 'DELETE', path: '/crawling/sessions/:id/',
    responses: { 204: { description: 'Deleted' } },
    summary: 'Stop the crawl at once and remove the session, its batches and files (matches stay): 204',
    async handler(ctx) {
      await service(ctx).remove(account(ctx), id(ctx, 'session'));
      return noContent();
    },
  },
  ...(['crawl', 'pause', 'resume'] as const).map(
    (action): RouteSpec => ({
      versions: [...V3], method: 'POST', path: `/crawling/sessions/:id/${action}/`, accepts: ['json', 'none'],
      responses: { 202: { schema: SESSION_SCHEMA } },
      summary: `${action}: 202 with the session, 409 when its state does not allow it`,
      async handler(ctx) {
        const s = await service(ctx)[action](account(ctx), id(ctx, 'session'));
        return { status: 202, body: sessionView(ctx.baseUrl, s) };
      },
    }),
  ),
  {
    versions: [...V3], method: 'GET', path: '/crawling/sessions/:id/batches/',
    query: CTIME_QUERY, responses: { 200: { schema: BATCH_PAGE_SCHEMA } },
    async handler(ctx) {
      const ctime = parseDateFilters(ctx.query, 'ctime');
      const sessionId = id(ctx, 'session');
      return ok(await listPage(ctx, (o, l) => service(ctx).batches(account(ctx), sessionId, ctime, o, l), (r) => batchView(ctx.baseUrl, r), { withCount: false }));
    },
  },
  {
    versions: [...V3], method: 'GET', path: '/crawling/batches/',
    query: CTIME_QUERY, responses: { 200: { schema: BATCH_PAGE_SCHEMA } },
    async handler(ctx) {
      const ctime = parseDateFilters(ctx.query, 'ctime');
      return ok(await listPage(ctx, (o, l) => service(ctx).batches(account(ctx), null, ctime, o, l), (r) => batchView(ctx.baseUrl, r), { withCount: false }));
    },
  },
  {
    versions: [...V3], method: 'GET', path: '/crawling/batches/:id/',
    responses: { 200: { schema: BATCH_SCHEMA } },
    async handler(ctx) {
      return ok(batchView(ctx.baseUrl, await service(ctx).batch(account(ctx), id(ctx, 'batch'))));
    },
  },
  {
    versions: [...V3], method: 'GET', path: '/crawling/batches/:id/:file',
    summary: 'A batch file (images.csv.gz, images.tar, videos.csv.gz, documents.csv.gz, pages.csv.gz, pages.warc.gz), streamed',
    responses: { 200: { files: ['application/gzip', 'application/x-tar'] } },
    async handler(ctx) {
      const a = await service(ctx).artifact(account(ctx), id(ctx, 'batch'), ctx.params.file ?? '');
      const blob = await ctx.container.get<BlobStore>(TOKENS.BlobStore).open(a.key);
      if (!blob) throw new BlobMissingError(a.key);
      return streamed(blob.stream, blob.size, a.contentType, `batch-${id(ctx, 'batch')}-${a.file}`);
    },
  },
];
