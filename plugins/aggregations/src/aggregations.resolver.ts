import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { badRequest, MAX_PAGE_SIZE, notFound, requirePrincipal, type GraphQLContext, type QueryValue } from '@filigrane/core';
import { AGGREGATIONS, isAggregationName, type AggregationDef } from './aggregation-catalog.js';
import { parsePatch } from './aggregation-fields.js';
import { AggregationQueryService } from './aggregation-query.service.js';
import { aggregationFilters } from './aggregations.routes.js';
import { aggregationView } from './aggregation-view.js';

@ObjectType('AggregationPage')
class AggregationPageType {
  @Field(() => Int) count!: number;
  @Field(() => Int) page!: number;
  @Field(() => Int) pageSize!: number;
  @Field(() => [GraphQLJSONObject], { description: 'v3 aggregation objects, as REST gives them' }) results!: Record<string, unknown>[];
}

function definition(name: string): AggregationDef {
  if (!isAggregationName(name)) throw notFound(`No aggregation "${name}".`);
  return AGGREGATIONS[name];
}

/** The filter object holds the REST parameters as keys (`match_count__gte`, `!site.domain`, `tags__in`). */
function toQuery(filter: Record<string, unknown> | undefined): Record<string, QueryValue> {
  const q: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(filter ?? {})) {
    if (v === undefined || v === null) continue;
    q[k] = Array.isArray(v) ? v.map(String) : String(v);
  }
  return q;
}

@injectable()
@Resolver()
export class AggregationsResolver {
  constructor(@inject(AggregationQueryService) private readonly query: AggregationQueryService) {}

  @Query(() => [String], { description: 'Names of the aggregations (GET /api/v3/aggregations/).' })
  aggregationNames(@Ctx() ctx: GraphQLContext): string[] {
    requirePrincipal(ctx);
    return Object.keys(AGGREGATIONS);
  }

  @Query(() => AggregationPageType, { description: 'An aggregation with the REST filter language: filter is {"match_count__gte": 2, "!site.domain": "x.com"}.' })
  async aggregations(
    @Arg('name', () => String) name: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => GraphQLJSONObject, { nullable: true }) filter?: Record<string, unknown>,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ): Promise<AggregationPageType> {
    const p = requirePrincipal(ctx);
    const def = definition(name);
    const query = toQuery(filter);
    for (const reserved of ['page', 'page_size', 'format', 'cursor']) if (reserved in query) throw badRequest('invalid_filter', { [reserved]: ['Not a filter.'] });
    const conditions = aggregationFilters(def, query, this.query.contributedFields());
    const size = Math.min(Math.max(pageSize ?? MAX_PAGE_SIZE, 1), MAX_PAGE_SIZE);
    const number = Math.max(page ?? 1, 1);
    const { rows, count } = await this.query.list(p.accountId, def, conditions, (number - 1) * size, size);
    return { count, page: number, pageSize: size, results: rows.map((r) => aggregationView(def, r, ctx.baseUrl)) };
  }

  @Query(() => GraphQLJSONObject, { nullable: true, description: 'One aggregation object, or null.' })
  async aggregation(@Arg('name', () => String) name: string, @Arg('id', () => String) id: string, @Ctx() ctx: GraphQLContext): Promise<Record<string, unknown> | null> {
    const p = requirePrincipal(ctx);
    const def = definition(name);
    const row = await this.query.get(p.accountId, def, id);
    return row ? aggregationView(def, row, ctx.baseUrl) : null;
  }

  @Mutation(() => GraphQLJSONObject, { description: 'PATCH of an aggregation object: export and/or tags (counts in _version).' })
  async updateAggregation(
    @Arg('name', () => String) name: string,
    @Arg('id', () => String) id: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('tags', () => [String], { nullable: true }) tags?: string[],
    @Arg('export', () => Boolean, { nullable: true }) exportFlag?: boolean,
  ): Promise<Record<string, unknown>> {
    const p = requirePrincipal(ctx);
    const def = definition(name);
    const change = parsePatch({ ...(tags ? { tags } : {}), ...(exportFlag !== undefined && exportFlag !== null ? { export: exportFlag } : {}) });
    const row = await this.query.update(p.accountId, def, id, change);
    if (!row) throw notFound('No such aggregation object.');
    return aggregationView(def, row, ctx.baseUrl);
  }
}
