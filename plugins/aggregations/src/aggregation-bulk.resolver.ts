import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { badRequest, filterToQuery, isEmptyTagEdit, notFound, parseTagEdit, requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { AGGREGATIONS, isAggregationName } from './aggregation-catalog.js';
import { AggregationQueryService } from './aggregation-query.service.js';
import { aggregationFilters } from './aggregations.routes.js';
import { AggregationFilter } from './aggregations.resolver.js';

@ObjectType('AggregationBulkResult')
class AggregationBulkResult {
  @Field(() => Int, { description: 'Objects the ids and/or filter selected.' }) matched!: number;
  @Field(() => Int) updated!: number;
  @Field(() => Int, { description: 'Objects left unchanged because they would have more than 50 tags.' }) refused!: number;
  @Field(() => [ID], { description: 'The changed objects (at most 1000 listed).' }) ids!: string[];
}

/** Edits of many aggregation objects at once (tags, export), by ids and/or the collection's filters. */
@injectable()
@Resolver()
export class AggregationBulkResolver {
  constructor(@inject(AggregationQueryService) private readonly query: AggregationQueryService) {}

  @Mutation(() => AggregationBulkResult, {
    description: 'Tags and export of many objects of an aggregation in one statement: by ids, by filter (as `aggregations`), or both. addTags/removeTags keep the tags others add meanwhile.',
  })
  async updateAggregations(
    @Arg('name', () => String) name: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('ids', () => [ID], { nullable: true }) ids?: string[],
    @Arg('filter', () => AggregationFilter, { nullable: true, description: 'The filter of `aggregations` (typed operators).' }) filter?: object,
    @Arg('tags', () => [String], { nullable: true }) tags?: string[],
    @Arg('addTags', () => [String], { nullable: true }) addTags?: string[],
    @Arg('removeTags', () => [String], { nullable: true }) removeTags?: string[],
    @Arg('export', () => Boolean, { nullable: true }) exportFlag?: boolean,
  ): Promise<AggregationBulkResult> {
    const p = requirePrincipal(ctx);
    if (!isAggregationName(name)) throw notFound(`No aggregation "${name}".`);
    const def = AGGREGATIONS[name];
    if ((ids === undefined || ids === null) && (filter === undefined || filter === null)) throw badRequest('invalid', { non_field_errors: ['Give ids, a filter, or both.'] });
    if (ids && (ids.length === 0 || ids.length > 1000 || !ids.every((id) => /^\d{1,18}$/.test(id)))) throw badRequest('invalid', { ids: ['ids is a list of 1 to 1000 object ids.'] });
    const edit = parseTagEdit({ set: ['tags', tags], add: ['addTags', addTags], remove: ['removeTags', removeTags] });
    if (isEmptyTagEdit(edit) && (exportFlag === undefined || exportFlag === null)) throw badRequest('invalid', { non_field_errors: ['Nothing to change: give tags, addTags, removeTags or export.'] });
    const query = filterToQuery(filter, AggregationFilter);
    return this.query.bulkUpdate(p.accountId, def, { conditions: aggregationFilters(def, query, this.query.contributedFields()), ids: ids ?? undefined }, { tags: isEmptyTagEdit(edit) ? undefined : edit, export: exportFlag ?? undefined });
  }
}
