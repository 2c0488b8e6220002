import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Query, registerEnumType, Resolver } from 'type-graphql';
import { badRequest, isEmptyTagEdit, notFound, parseTagEdit, requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { MatchBulkService } from './match-bulk.service.js';
import { MatchFilter, matchFilterQuery } from './match-filter-arg.js';
import { MatchQueryService } from './match-query.service.js';
import { checkTimeZone, MatchHistogramService, type HistogramDate, type HistogramGroup, type HistogramInterval } from './match-histogram.service.js';

enum Interval {
  DAY = 'day',
  WEEK = 'week',
  MONTH = 'month',
}
registerEnumType(Interval, { name: 'HistogramInterval', description: 'Calendar days, ISO weeks (from Monday) or months, in the histogram\'s time zone.' });

enum MatchGroup {
  SITE = 'site',
  COUNTRY = 'country',
  SOURCE = 'source',
  WATERMARKED = 'watermarked',
  KIND = 'kind',
  MEDIA = 'media',
}
registerEnumType(MatchGroup, {
  name: 'MatchHistogramGroup',
  description: 'SITE (key: site id, label: domain), COUNTRY (site country code), SOURCE (crawler, search, press...), WATERMARKED ("true"/"false"), KIND (web, press), MEDIA (key: media id, label: path).',
});

enum MatchDate {
  DATE_CREATED = 'date_created',
  DATE_UPDATED = 'date_updated',
  PAGE_DATE_PUBLISHED = 'page.date_published',
}
registerEnumType(MatchDate, { name: 'MatchHistogramDate', description: 'The date a match is counted at.' });

@ObjectType('MatchHistogramBucket')
class BucketType {
  @Field(() => Date, { nullable: true, description: 'Start of the time slot (with an interval).' }) start!: Date | null;
  @Field(() => Date, { nullable: true, description: 'End of the time slot (exclusive).' }) end!: Date | null;
  @Field(() => String, { nullable: true, description: 'The group (with groupBy); null for matches without one (no site, no country).' }) key!: string | null;
  @Field(() => String, { nullable: true, description: 'A readable name of the group: the site\'s domain, the media\'s path.' }) label!: string | null;
  @Field(() => Int) count!: number;
}

@ObjectType('MatchHistogram')
class HistogramType {
  @Field(() => Int, { description: 'Matches counted (the filter, from and to applied).' }) total!: number;
  @Field(() => Int, { description: 'Matches of the groups beyond `limit`.' }) otherCount!: number;
  @Field(() => String) timeZone!: string;
  @Field(() => [BucketType], { description: 'Time slots in order (every slot from `from`, or the first match, to `to`, or the last, zeros included), each with every kept group; or the groups, largest first.' })
  buckets!: BucketType[];
}

@ObjectType('MatchBulkResult')
class BulkResultType {
  @Field(() => Int, { description: 'Matches the ids and/or filter selected.' }) matched!: number;
  @Field(() => Int) updated!: number;
  @Field(() => Int, { description: 'Matches left unchanged because they would have more than 50 tags.' }) refused!: number;
  @Field(() => [ID], { description: 'The changed matches (at most 1000 listed).' }) ids!: string[];
}

@ObjectType('MatchTags')
class MatchTagsType {
  @Field(() => ID) id!: string;
  @Field(() => [String]) tags!: string[];
  @Field(() => Boolean) export!: boolean;
}

/** Dashboards in one request (counts by time and group) and edits of many matches at once. */
@injectable()
@Resolver()
export class MatchDashboardResolver {
  constructor(
    @inject(MatchHistogramService) private readonly histograms: MatchHistogramService,
    @inject(MatchBulkService) private readonly bulk: MatchBulkService,
    @inject(MatchQueryService) private readonly query: MatchQueryService,
  ) {}

  @Query(() => HistogramType, {
    nullable: true,
    description: 'Match counts by day, week or month and/or by site, country, source, watermarked, kind or media, for the filter: a 30-day chart is one field.',
  })
  async matchHistogram(
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => MatchFilter, { nullable: true }) filter?: object,
    @Arg('interval', () => Interval, { nullable: true }) interval?: Interval,
    @Arg('groupBy', () => MatchGroup, { nullable: true }) groupBy?: MatchGroup,
    @Arg('timeZone', () => String, { nullable: true, description: 'IANA time zone the slots are cut in (default UTC).' }) timeZone?: string,
    @Arg('date', () => MatchDate, { nullable: true, description: 'Default DATE_CREATED.' }) date?: MatchDate,
    @Arg('from', () => String, { nullable: true, description: 'ISO date (midnight in timeZone) or date-time; inclusive.' }) from?: string,
    @Arg('to', () => String, { nullable: true, description: 'ISO date or date-time; exclusive.' }) to?: string,
    @Arg('limit', () => Int, { nullable: true, description: 'Groups kept, the largest (1 to 100, default 20).' }) limit?: number,
  ): Promise<HistogramType> {
    const p = requirePrincipal(ctx);
    if (limit !== undefined && limit !== null && (limit < 1 || limit > 100)) throw badRequest('invalid', { limit: ['limit is 1 to 100.'] });
    return this.histograms.histogram(p.accountId, this.query.v4Filters(matchFilterQuery(filter)), {
      interval: (interval ?? undefined) as HistogramInterval | undefined,
      groupBy: (groupBy ?? undefined) as HistogramGroup | undefined,
      timeZone: checkTimeZone(timeZone ?? 'UTC'),
      date: (date ?? 'date_created') as HistogramDate,
      from: from ?? undefined,
      to: to ?? undefined,
      limit: limit ?? 20,
    });
  }

  @Mutation(() => BulkResultType, {
    description: 'Tags and export of many matches in one statement: by ids, by filter (the listing\'s), or both. addTags/removeTags keep the tags others add meanwhile; tags replaces the list.',
  })
  async updateMatches(
    @Ctx() ctx: GraphQLContext,
    @Arg('ids', () => [ID], { nullable: true }) ids?: string[],
    @Arg('filter', () => MatchFilter, { nullable: true }) filter?: object,
    @Arg('tags', () => [String], { nullable: true }) tags?: string[],
    @Arg('addTags', () => [String], { nullable: true }) addTags?: string[],
    @Arg('removeTags', () => [String], { nullable: true }) removeTags?: string[],
    @Arg('export', () => Boolean, { nullable: true }) exportFlag?: boolean,
  ): Promise<BulkResultType> {
    const p = requirePrincipal(ctx);
    const edit = parseTagEdit({ set: ['tags', tags], add: ['addTags', addTags], remove: ['removeTags', removeTags] });
    if (isEmptyTagEdit(edit) && (exportFlag === undefined || exportFlag === null)) throw badRequest('invalid', { non_field_errors: ['Nothing to change: give tags, addTags, removeTags or export.'] });
    return this.bulk.update(
      p.accountId,
      { ids: ids ?? undefined, query: filter === undefined || filter === null ? undefined : matchFilterQuery(filter) },
      { tags: isEmptyTagEdit(edit) ? undefined : edit, export: exportFlag ?? undefined },
    );
  }

  @Mutation(() => MatchTagsType, { description: 'Adds tags to a match, keeping every tag others add or remove meanwhile (one UPDATE, no read first).' })
  addMatchTags(@Arg('id', () => ID) id: string, @Arg('tags', () => [String]) tags: string[], @Ctx() ctx: GraphQLContext): Promise<MatchTagsType> {
    return this.editOne(ctx, id, parseTagEdit({ add: ['tags', tags] }));
  }

  @Mutation(() => MatchTagsType, { description: 'Removes tags from a match, keeping every other tag (one UPDATE, no read first).' })
  removeMatchTags(@Arg('id', () => ID) id: string, @Arg('tags', () => [String]) tags: string[], @Ctx() ctx: GraphQLContext): Promise<MatchTagsType> {
    return this.editOne(ctx, id, parseTagEdit({ remove: ['tags', tags] }));
  }

  private async editOne(ctx: GraphQLContext, id: string, edit: ReturnType<typeof parseTagEdit>): Promise<MatchTagsType> {
    const p = requirePrincipal(ctx);
    if (!/^\d{1,15}$/.test(id)) throw notFound('No such match.');
    const found = await this.bulk.editTags(p.accountId, id, edit);
    if (!found) throw notFound('No such match.');
    return found;
  }
}
