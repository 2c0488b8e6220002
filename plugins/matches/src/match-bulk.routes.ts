import { badRequest, isEmptyTagEdit, notFound, ok, parseTagEdit, queryString, type QueryValue, type RouteContext, type RouteSpec } from '@filigrane/core';
import { MatchBulkService } from './match-bulk.service.js';
import { checkTimeZone, HISTOGRAM_DATES, HISTOGRAM_GROUPS, HISTOGRAM_INTERVALS, MatchHistogramService } from './match-histogram.service.js';
import { MatchQueryService } from './match-query.service.js';
import { matchV4 } from './match-view.js';
import { MATCH_V4_SCHEMA } from './matches.schemas.js';

/** The match after a tag edit, as GET /api/v4/matches/<id>/ shows it. */
async function matchAfter(ctx: RouteContext, id: string) {
  const service = ctx.container.get(MatchQueryService);
  const row = await service.get(ctx.principal!.accountId, Number(id));
  const [match] = row ? await service.views([row], matchV4, ctx.baseUrl) : [];
  if (!match) throw notFound('No such match.');
  return ok(match);
}

const tagRoute = (method: 'PUT' | 'DELETE'): RouteSpec => ({
  versions: ['v4'],
  method,
  path: '/matches/:id/tags/:tag/',
  accepts: ['none'],
  summary: method === 'PUT' ? 'Adds one tag (idempotent), keeping every tag others add meanwhile; answers the match' : 'Removes one tag, keeping the others; answers the match',
  responses: { 200: { schema: MATCH_V4_SCHEMA } },
  async handler(ctx) {
    const id = ctx.params.id ?? '';
    if (!/^\d{1,15}$/.test(id)) throw notFound('No such match.');
    const tag = ctx.params.tag ?? '';
    const edit = parseTagEdit(method === 'PUT' ? { add: ['tag', [tag]] } : { remove: ['tag', [tag]] });
    if (!(await ctx.container.get(MatchBulkService).editTags(ctx.principal!.accountId, id, edit))) throw notFound('No such match.');
    return matchAfter(ctx, id);
  },
});

const BULK_FIELDS = ['ids', 'tags', 'add_tags', 'remove_tags', 'export'];
const HISTOGRAM_PARAMS = ['interval', 'group_by', 'time_zone', 'date', 'from', 'to', 'limit'];

export const matchBulkRoutes: RouteSpec[] = [
  tagRoute('PUT'),
  tagRoute('DELETE'),
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/matches/',
    summary: 'Tags and export of every match of the filters (the query string of GET /api/v4/matches/) and/or of `ids`, in one statement',
    requestSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ids: { type: 'array', items: { type: 'string' }, maxItems: 1000 },
        tags: { type: 'array', items: { type: 'string' }, description: 'Replaces the list' },
        add_tags: { type: 'array', items: { type: 'string' } },
        remove_tags: { type: 'array', items: { type: 'string' } },
        export: { type: 'boolean' },
      },
    },
    responses: {
      200: {
        schema: {
          type: 'object',
          required: ['matched', 'updated', 'refused', 'ids'],
          properties: { matched: { type: 'integer' }, updated: { type: 'integer' }, refused: { type: 'integer' }, ids: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
    async handler(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid', { non_field_errors: ['A JSON object is required.'] });
      for (const k of Object.keys(body)) if (!BULK_FIELDS.includes(k)) throw badRequest('invalid', { [k]: [`Unknown field; use ${BULK_FIELDS.join(', ')}.`] });
      if (body.export !== undefined && typeof body.export !== 'boolean') throw badRequest('invalid', { export: ['export is a boolean.'] });
      if (body.ids !== undefined && !(Array.isArray(body.ids) && body.ids.every((i) => typeof i === 'string'))) throw badRequest('invalid', { ids: ['ids is a list of match ids.'] });
      const edit = parseTagEdit({ set: ['tags', body.tags], add: ['add_tags', body.add_tags], remove: ['remove_tags', body.remove_tags] });
      if (isEmptyTagEdit(edit) && body.export === undefined) throw badRequest('invalid', { non_field_errors: ['Nothing to change: give tags, add_tags, remove_tags or export.'] });
      const result = await ctx.container.get(MatchBulkService).update(
        ctx.principal!.accountId,
        { ids: body.ids as string[] | undefined, query: ctx.query },
        { tags: isEmptyTagEdit(edit) ? undefined : edit, export: body.export as boolean | undefined },
      );
      return ok(result);
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/matches/histogram/',
    summary: 'Match counts by `interval` (day, week, month) and/or `group_by` (site, country, source, watermarked, kind, media), for the filters of GET /api/v4/matches/',
    query: {
      interval: { type: 'string', enum: [...HISTOGRAM_INTERVALS] },
      group_by: { type: 'string', enum: [...HISTOGRAM_GROUPS] },
      time_zone: { type: 'string', description: 'IANA time zone (default UTC)' },
      date: { type: 'string', enum: [...HISTOGRAM_DATES] },
      from: { type: 'string', description: 'ISO date or date-time, inclusive' },
      to: { type: 'string', description: 'ISO date or date-time, exclusive' },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
    },
    responses: { 200: { schema: { type: 'object', required: ['total', 'other_count', 'time_zone', 'buckets'] } } },
    async handler(ctx) {
      const filters: Record<string, QueryValue> = {};
      for (const [k, v] of Object.entries(ctx.query)) if (!HISTOGRAM_PARAMS.includes(k)) filters[k] = v;
      const pick = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
        const v = queryString(ctx.query, name);
        if (v !== undefined && !allowed.includes(v as T)) throw badRequest('invalid', { [name]: [`${name} is one of ${allowed.join(', ')}.`] });
        return v as T | undefined;
      };
      const limitText = queryString(ctx.query, 'limit');
      const limit = limitText === undefined ? 20 : Number(limitText);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('invalid', { limit: ['limit is 1 to 100.'] });
      const h = await ctx.container.get(MatchHistogramService).histogram(ctx.principal!.accountId, ctx.container.get(MatchQueryService).v4Filters(filters), {
        interval: pick('interval', HISTOGRAM_INTERVALS),
        groupBy: pick('group_by', HISTOGRAM_GROUPS),
        date: pick('date', HISTOGRAM_DATES) ?? 'date_created',
        timeZone: checkTimeZone(queryString(ctx.query, 'time_zone') ?? 'UTC'),
        from: queryString(ctx.query, 'from'),
        to: queryString(ctx.query, 'to'),
        limit,
      });
      return ok({
        total: h.total,
        other_count: h.otherCount,
        time_zone: h.timeZone,
        buckets: h.buckets.map((b) => ({ start: b.start?.toISOString() ?? null, end: b.end?.toISOString() ?? null, key: b.key, label: b.label, count: b.count })),
      });
    },
  },
];
