import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import {
  camelCaseKeys, filterInputType, filterToQuery, graphqlPageSize, notFound, pageRequest, requirePrincipal, type GraphQLContext,
} from '@filigrane/core';
import { AGGREGATIONS, aggregationFields, isAggregationName, type AggregationDef } from './aggregation-catalog.js';
import { parsePatch } from './aggregation-fields.js';
import { AggregationQueryService, type AggregationRow } from './aggregation-query.service.js';
import { aggregationFilters } from './aggregations.routes.js';
import { aggregationView } from './aggregation-view.js';

@ObjectType('AggregationMedia')
export class AggregationMedia {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'image, video or other' }) type!: string;
  @Field(() => String) url!: string;
  @Field(() => String) thumbnail!: string;
}

@ObjectType('AggregationSite')
export class AggregationSite {
  @Field(() => Int) id!: number;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) domain!: string | null;
  @Field(() => String, { nullable: true }) suffix!: string | null;
  @Field(() => String, { nullable: true }) country!: string | null;
}

@ObjectType('Aggregation', { description: 'A v3 aggregation object (GET /api/v3/aggregations/<name>/<id>/): matches grouped by media, site, page.' })
export class Aggregation {
  @Field(() => String, { description: 'REST `_id`' }) id!: string;
  @Field(() => Int, { description: 'REST `_version`: counts the edits (tags, export).' }) version!: number;
  @Field(() => Int, { description: 'The account.' }) group!: number;
  @Field(() => Int, { description: '0 unknown, 1 video, 2 image, 3 crawler, 4 site' }) type!: number;
  @Field(() => String) created!: string;
  @Field(() => String) updated!: string;
  @Field(() => Boolean) export!: boolean;
  @Field(() => Boolean) deleted!: boolean;
  @Field(() => [String]) tags!: string[];
  @Field(() => String) url!: string;
  @Field(() => String, { nullable: true }) path!: string | null;
  @Field(() => AggregationMedia, { nullable: true }) media!: AggregationMedia | null;
  @Field(() => AggregationSite, { nullable: true, description: 'group-site-path and group-site-path-pageurl.' }) site?: AggregationSite | null;
  @Field(() => String, { nullable: true, description: 'group-site-path-pageurl.' }) pageUrl?: string | null;
  @Field(() => Int) matchCount!: number;
  @Field(() => Int) watermarkedCount!: number;
  @Field(() => Int) webCount!: number;
  @Field(() => Int) pressCount!: number;
  @Field(() => Int) creditCount!: number;
  @Field(() => Int) videoCount!: number;
  @Field(() => String) firstSeen!: string;
  @Field(() => String) lastSeen!: string;
  @Field(() => [Int]) sessions!: number[];
  @Field(() => String, { description: 'The REST listing of its matches.' }) matches!: string;
}

@ObjectType('AggregationPage')
class AggregationPageType {
  @Field(() => Int) count!: number;
  @Field(() => Int) page!: number;
  @Field(() => Int) pageSize!: number;
  @Field(() => [Aggregation]) results!: Aggregation[];
}

/** Every filter of the three aggregations (the site and page ones are refused where they do not apply, as in REST). */
export const AggregationFilter = filterInputType('AggregationFilter', aggregationFields(AGGREGATIONS['group-site-path-pageurl']), {
  description: 'The filters of GET /api/v3/aggregations/<name>/: site* on the site groups, pageUrl on group-site-path-pageurl.',
});

function definition(name: string): AggregationDef {
  if (!isAggregationName(name)) throw notFound(`No aggregation "${name}".`);
  return AGGREGATIONS[name];
}

export const aggregationObject = (def: AggregationDef, r: AggregationRow, baseUrl: string) => camelCaseKeys<Aggregation>(aggregationView(def, r, baseUrl));

@injectable()
@Resolver()
export class AggregationsResolver {
  constructor(@inject(AggregationQueryService) private readonly query: AggregationQueryService) {}

  @Query(() => [String], { description: 'Names of the aggregations (GET /api/v3/aggregations/).' })
  aggregationNames(@Ctx() ctx: GraphQLContext): string[] {
    requirePrincipal(ctx);
    return Object.keys(AGGREGATIONS);
  }

  @Query(() => AggregationPageType, { description: 'An aggregation (GET /api/v3/aggregations/<name>/), with typed filters.' })
  async aggregations(
    @Arg('name', () => String) name: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => AggregationFilter, { nullable: true }) filter?: object,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) pageSize?: number,
  ): Promise<AggregationPageType> {
    const p = requirePrincipal(ctx);
    const def = definition(name);
    const conditions = aggregationFilters(def, filterToQuery(filter, AggregationFilter), this.query.contributedFields());
    const request = pageRequest(page ?? 1, graphqlPageSize(pageSize));
    const { rows, count } = await this.query.list(p.accountId, def, conditions, request.offset, request.pageSize);
    return { count, page: request.page, pageSize: request.pageSize, results: rows.map((r) => aggregationObject(def, r, ctx.baseUrl)) };
  }

  @Query(() => Aggregation, { nullable: true, description: 'One aggregation object; NOT_FOUND when there is none (as REST answers 404).' })
  async aggregation(@Arg('name', () => String) name: string, @Arg('id', () => String) id: string, @Ctx() ctx: GraphQLContext): Promise<Aggregation> {
    const p = requirePrincipal(ctx);
    const def = definition(name);
    const row = await this.query.get(p.accountId, def, id);
    if (!row) throw notFound('No such aggregation object.');
    return aggregationObject(def, row, ctx.baseUrl);
  }

  @Mutation(() => Aggregation, { nullable: true, description: 'PATCH of an aggregation object: export and/or tags (counts in version).' })
  async updateAggregation(
    @Arg('name', () => String) name: string,
    @Arg('id', () => String) id: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('tags', () => [String], { nullable: true }) tags?: string[],
    @Arg('export', () => Boolean, { nullable: true }) exportFlag?: boolean,
  ): Promise<Aggregation> {
    const p = requirePrincipal(ctx);
    const def = definition(name);
    const change = parsePatch({ ...(tags ? { tags } : {}), ...(exportFlag !== undefined && exportFlag !== null ? { export: exportFlag } : {}) });
    const row = await this.query.update(p.accountId, def, id, change);
    if (!row) throw notFound('No such aggregation object.');
    return aggregationObject(def, row, ctx.baseUrl);
  }
}
