import {
  csvExport,
  encodeCursor,
  linkWith,
  notFound,
  ok,
  pageSchema,
  parsePage,
  queryString,
  validationError,
  wantsCsv,
  type Cursor,
  type ErrorItem,
  type RouteContext,
  type RouteSpec,
} from '@filigrane/core';
import { parseMatchChange } from './match-change.js';
import { matchesCsv } from './match-csv.js';
import { parseV3Filters, V3_FIELDS, V4_FIELDS } from './match-filters.js';
import { MatchQueryService, type MatchPage, type MatchRow } from './match-query.service.js';
import { matchV3, matchV4 } from './match-view.js';
import { MATCH_V4_SCHEMA, V3_MATCH_SCHEMAS } from './matches.schemas.js';

/** One page of matches: after the cursor, else at `page` (offset paging for clients that page by number). */
function listMatches(ctx: RouteContext, filters: Parameters<MatchQueryService['list']>[1]): Promise<MatchPage> {
  const { pageSize, offset } = parsePage(ctx);
  return ctx.container.get(MatchQueryService).list(ctx.principal!.accountId, filters, queryString(ctx.query, 'cursor'), pageSize, offset);
}

/** The page envelope with cursor links that keep the filters in use. */
async function envelope(ctx: RouteContext, page: MatchPage, view: typeof matchV4) {
  const link = (c: Cursor | null) => (c ? linkWith(ctx, { cursor: encodeCursor(c), page: null }) : null);
  return {
    count: page.count,
    next: link(page.next),
    previous: link(page.previous),
    results: await ctx.container.get(MatchQueryService).views(page.rows, view, ctx.baseUrl),
  };
}

/** One match in a version's view; a match whose media was just deleted is not found. */
async function one(ctx: RouteContext, row: MatchRow, view: typeof matchV4) {
  const [match] = await ctx.container.get(MatchQueryService).views([row], view, ctx.baseUrl);
  if (!match) throw notFound('No such match.');
  return match;
}

function matchId(ctx: RouteContext): number {
  if (!/^\d{1,15}$/.test(ctx.params.id ?? '')) throw notFound('No such match.');
  return Number(ctx.params.id);
}

const v3List = (kind: 'web' | 'press' | 'credit'): RouteSpec => ({
  versions: ['v3'],
  method: 'GET',
  path: `/matches/${kind}/`,
  formats: ['csv'],
  filters: V3_FIELDS[kind],
  summary: `${kind} matches, newest first`,
  responses: { 200: { schema: pageSchema(V3_MATCH_SCHEMAS[kind]) } },
  async handler(ctx) {
    const filters = parseV3Filters(kind, ctx.query);
    if (wantsCsv(ctx)) return csvExport(matchesCsv(ctx, filters, 'v3'));
    const page = await listMatches(ctx, filters);
    return ok(await envelope(ctx, page, matchV3));
  },
});

const v3Detail = (kind: 'web' | 'press' | 'credit'): RouteSpec => ({
  versions: ['v3'],
  method: 'GET',
  path: `/matches/${kind}/:id/`,
  responses: { 200: { schema: V3_MATCH_SCHEMAS[kind] } },
  async handler(ctx) {
    const row = await ctx.container.get(MatchQueryService).get(ctx.principal!.accountId, matchId(ctx), kind);
    if (!row) throw notFound('No such match.');
    return ok(await one(ctx, row, matchV3));
  },
});

export const matchRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'GET',
    path: '/matches/',
    formats: ['csv'],
    filters: V4_FIELDS,
    summary: 'Matches with filters, newest first, cursor pagination',
    responses: { 200: { schema: pageSchema(MATCH_V4_SCHEMA) } },
    async handler(ctx) {
      const filters = ctx.container.get(MatchQueryService).v4Filters(ctx.query);
      if (wantsCsv(ctx)) return csvExport(matchesCsv(ctx, filters, 'v4'));
      const page = await listMatches(ctx, filters);
      return ok(await envelope(ctx, page, matchV4));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/matches/:id/',
    responses: { 200: { schema: MATCH_V4_SCHEMA } },
    async handler(ctx) {
      const row = await ctx.container.get(MatchQueryService).get(ctx.principal!.accountId, matchId(ctx));
      if (!row) throw notFound('No such match.');
      return ok(await one(ctx, row, matchV4));
    },
  },
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/matches/:id/',
    summary: 'Change tags and export; answers the updated match',
    requestSchema: { type: 'object', additionalProperties: false, properties: { tags: { type: 'array', items: { type: 'string' } }, export: { type: 'boolean' } } },
    responses: { 200: { schema: MATCH_V4_SCHEMA } },
    async handler(ctx) {
      const service = ctx.container.get(MatchQueryService);
      const id = matchId(ctx);
      if (!(await service.update(ctx.principal!.accountId, id, parseMatchChange(ctx.body)))) throw notFound('No such match.');
      const row = (await service.get(ctx.principal!.accountId, id))!;
      return ok(await one(ctx, row, matchV4));
    },
  },
  v3List('web'),
  v3List('press'),
  v3List('credit'),
  v3Detail('web'),
  v3Detail('press'),
  v3Detail('credit'),
];
