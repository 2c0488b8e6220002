import { listPage, ok, type RouteContext, type RouteSpec } from '@filigrane/core';
import { withResolvedFile } from './search-input.js';
import { SearchService } from './search.service.js';
import { SEARCH_PAGE_SCHEMA, SEARCH_REQUEST_SCHEMA, SEARCH_RESULT_SCHEMA, SEARCH_SCHEMA } from './search.schemas.js';

export const searchRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'POST',
    path: '/searches/',
    accepts: ['json', 'multipart'],
    requestSchema: SEARCH_REQUEST_SCHEMA,
    responses: { 200: { description: 'Synchronous search: the result', schema: SEARCH_RESULT_SCHEMA }, 201: { description: 'Asynchronous search: poll its url', schema: SEARCH_SCHEMA } },
    summary: 'Search by text or image (multipart file, or JSON file URL / data URI): 200 with the result when sync, 201 with a pollable search otherwise',
    async handler(ctx) {
      const p = ctx.principal!;
      const body = await withResolvedFile(ctx, ctx.body);
      const result = await ctx.container.get(SearchService).submit(body, { accountId: p.accountId, home: p.home, baseUrl: ctx.baseUrl });
      return { status: result.status, body: result.body };
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/searches/',
    summary: 'The account\'s asynchronous searches, newest first',
    responses: { 200: { schema: SEARCH_PAGE_SCHEMA } },
    async handler(ctx) {
      const service = ctx.container.get(SearchService);
      return ok(await listPage(ctx, (offset, limit) => service.list(ctx.principal!.accountId, offset, limit), (r) => service.view(r, ctx.baseUrl)));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/searches/:id/',
    summary: 'Status of an asynchronous search; matches once complete',
    responses: { 200: { schema: SEARCH_SCHEMA } },
    handler: async (ctx) => ok(await ctx.container.get(SearchService).get(ctx.principal!.accountId, ctx.params.id ?? '', ctx.baseUrl)),
  },
];
