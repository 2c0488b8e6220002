import { ok, pageEnvelope, parsePage, type RouteSpec } from '@filigrane/core';
import { SearchService } from './search.service.js';

export const searchRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'POST',
    path: '/searches/',
    accepts: ['json'],
    summary: 'Search by text (or image): 200 with the result when sync, 201 with a pollable search otherwise',
    async handler(ctx) {
      const p = ctx.principal!;
      const result = await ctx.container.get(SearchService).submit(ctx.body, { accountId: p.accountId, home: p.home, baseUrl: ctx.baseUrl });
      return { status: result.status, body: result.body };
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/searches/',
    summary: 'The account\'s asynchronous searches, newest first',
    async handler(ctx) {
      const page = parsePage(ctx);
      const service = ctx.container.get(SearchService);
      const [rows, total] = await service.list(ctx.principal!.accountId, page.offset, page.pageSize);
      return ok(pageEnvelope(ctx, page, total, rows.map((r) => service.view(r, ctx.baseUrl))));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/searches/:id/',
    summary: 'Status of an asynchronous search; matches once complete',
    handler: async (ctx) => ok(await ctx.container.get(SearchService).get(ctx.principal!.accountId, ctx.params.id ?? '', ctx.baseUrl)),
  },
];
