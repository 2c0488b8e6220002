import {
  csvExport,
  noContent,
  notFound,
  ok,
  pageEnvelope,
  parseFilterQuery,
  parsePage,
  wantsCsv,
  type FilterCondition,
  type FilterFields,
  type RouteContext,
  type RouteSpec,
} from '@filigrane/core';
import { AGGREGATION_LIST_SCHEMA, AGGREGATION_OBJECT_SCHEMA, AGGREGATION_PAGE_SCHEMA, AGGREGATION_PATCH_SCHEMA, FIELD_PUT_SCHEMA } from './aggregations.schemas.js';
import { AGGREGATION_NAMES, AGGREGATIONS, aggregationFields, csvColumns, isAggregationName, NOT_FILTERABLE, type AggregationDef } from './aggregation-catalog.js';
import { deleteField, parsePatch, putField, readField } from './aggregation-fields.js';
import { AggregationQueryService, type AggregationRow, type ExportRow } from './aggregation-query.service.js';
import { aggregationCells, aggregationView } from './aggregation-view.js';

function definition(ctx: Pick<RouteContext, 'params'>): AggregationDef {
  const name = ctx.params.aggregation;
  if (!isAggregationName(name)) throw notFound(`No aggregation "${name}"; see /api/v3/aggregations/.`);
  return AGGREGATIONS[name];
}

/** The collection's filters, in the spec's filter language. */
export function aggregationFilters(def: AggregationDef, query: RouteContext['query'], contributed: FilterFields = {}): FilterCondition[] {
  return parseFilterQuery(query, { ...contributed, ...aggregationFields(def) }, { notFilterable: NOT_FILTERABLE });
}

async function found(ctx: RouteContext, def: AggregationDef): Promise<AggregationRow> {
  const row = await ctx.container.get(AggregationQueryService).get(ctx.principal!.accountId, def, ctx.params.id ?? '');
  if (!row) throw notFound('No such aggregation object.');
  return row;
}

const service = (ctx: RouteContext) => ctx.container.get(AggregationQueryService);

/** Field edits answer the whole object, so the client sees the new `_version`. */
async function edited(ctx: RouteContext, def: AggregationDef, row: AggregationRow | null) {
  if (!row) throw notFound('No such aggregation object.');
  return ok(aggregationView(def, row, ctx.baseUrl));
}

export const aggregationRoutes: RouteSpec[] = [
  {
    versions: ['v3'],
    method: 'GET',
    path: '/aggregations/',
    summary: 'The aggregations available (url and name)',
    responses: { 200: { schema: AGGREGATION_LIST_SCHEMA } },
    async handler(ctx) {
      return ok(AGGREGATION_NAMES.map((name) => ({ url: `${ctx.baseUrl}/api/v3/aggregations/${name}/`, name })));
    },
  },
  {
    versions: ['v3'],
    method: 'GET',
    path: '/aggregations/:aggregation/',
    formats: ['csv'],
    // Every aggregation's fields (the site ones on the site groups, page_url on group-site-path-pageurl).
    filters: aggregationFields(AGGREGATIONS['group-site-path-pageurl']),
    summary: 'Aggregation objects with filters (most recent activity first); format=csv exports every exportable object',
    responses: { 200: { schema: AGGREGATION_PAGE_SCHEMA } },
    async handler(ctx) {
      const def = definition(ctx);
      const conditions = aggregationFilters(def, ctx.query, service(ctx).contributedFields());
      const accountId = ctx.principal!.accountId;
      if (wantsCsv(ctx)) {
        const batches = service(ctx).exportBatches(accountId, def, conditions);
        return csvExport({
          filename: `${def.name}-${new Date().toISOString().slice(0, 10)}.csv`,
          columns: csvColumns(def),
          // Rows go to CSV cells directly: no view object per row (100,000-row exports).
          batches: batches as AsyncIterable<unknown[]> as AsyncIterable<Record<string, unknown>[]>,
          cells: (row) => aggregationCells(def, row as unknown as ExportRow, ctx.baseUrl),
        });
      }
      const page = parsePage(ctx);
      const { rows, count, hasNext } = await service(ctx).list(accountId, def, conditions, page.offset, page.pageSize);
      return ok(pageEnvelope(ctx, page, count, rows.map((r) => aggregationView(def, r, ctx.baseUrl)), { hasNext }));
    },
  },
  {
    versions: ['v3'],
    method: 'GET',
    path: '/aggregations/:aggregation/:id/',
    responses: { 200: { schema: AGGREGATION_OBJECT_SCHEMA } },
    async handler(ctx) {
      const def = definition(ctx);
      return ok(aggregationView(def, await found(ctx, def), ctx.baseUrl));
    },
  },
  {
    versions: ['v3'],
    method: 'PATCH',
    path: '/aggregations/:aggregation/:id/',
    summary: 'Change export and/or tags; answers the object with its new _version',
    requestSchema: AGGREGATION_PATCH_SCHEMA,
    responses: { 200: { schema: AGGREGATION_OBJECT_SCHEMA } },
    async handler(ctx) {
      const def = definition(ctx);
      const change = parsePatch(ctx.body);
      return edited(ctx, def, await service(ctx).update(ctx.principal!.accountId, def, ctx.params.id ?? '', change));
    },
  },
  {
    versions: ['v3'],
    method: 'GET',
    path: '/aggregations/:aggregation/:id/:field/',
    summary: 'The value of one field; list items as <field>.<index>',
    responses: { 200: { description: 'The bare JSON value of the field', schema: {} } },
    async handler(ctx) {
      const def = definition(ctx);
      return ok(readField(aggregationView(def, await found(ctx, def), ctx.baseUrl), ctx.params.field ?? ''));
    },
  },
  {
    versions: ['v3'],
    method: 'PUT',
    path: '/aggregations/:aggregation/:id/:field/',
    summary: 'Set export, tags or tags.<index> from {content}',
    requestSchema: FIELD_PUT_SCHEMA,
    responses: { 200: { schema: AGGREGATION_OBJECT_SCHEMA } },
    async handler(ctx) {
      const def = definition(ctx);
      const field = ctx.params.field ?? '';
      const row = await found(ctx, def);
      // Unknown fields are 404 before anything else; tags.<length> appends.
      if (!/^tags\.\d+$/.test(field)) readField(aggregationView(def, row, ctx.baseUrl), field);
      putField(field, ctx.body, row);
      return edited(ctx, def, await service(ctx).edit(ctx.principal!.accountId, def, row.id, (current) => putField(field, ctx.body, current)));
    },
  },
  {
    versions: ['v3'],
    method: 'DELETE',
    path: '/aggregations/:aggregation/:id/:field/',
    summary: 'Reset export, empty tags or remove tags.<index>',
    responses: { 204: { description: 'Removed' } },
    async handler(ctx) {
      const def = definition(ctx);
      const field = ctx.params.field ?? '';
      const row = await found(ctx, def);
      readField(aggregationView(def, row, ctx.baseUrl), field);
      deleteField(field, row);
      await service(ctx).edit(ctx.principal!.accountId, def, row.id, (current) => deleteField(field, current));
      return noContent();
    },
  },
];
