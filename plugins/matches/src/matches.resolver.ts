import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { encodeCursor, notFound, requirePrincipal, type GraphQLContext, type QueryValue } from '@filigrane/core';
import { parseV3Filters } from './match-filters.js';
import { MatchQueryService } from './match-query.service.js';
import { parseMatchChange } from './match-change.js';
import { matchV3, matchV4 } from './match-view.js';

@InputType('MatchFilter', { description: 'The filters of GET /api/v4/matches/ (dates as ISO dates or date-times).' })
export class MatchFilterInput {
  @Field(() => String, { nullable: true }) id?: string;
  @Field(() => String, { nullable: true }) dateCreated?: string;
  @Field(() => String, { nullable: true }) dateCreatedGte?: string;
  @Field(() => String, { nullable: true }) dateCreatedLte?: string;
  @Field(() => String, { nullable: true }) dateCreatedGt?: string;
  @Field(() => String, { nullable: true }) dateCreatedLt?: string;
  @Field(() => Boolean, { nullable: true }) watermarked?: boolean;
  @Field(() => String, { nullable: true }) siteId?: string;
  @Field(() => String, { nullable: true }) siteName?: string;
  @Field(() => String, { nullable: true }) siteSuffix?: string;
  @Field(() => String, { nullable: true }) siteDomain?: string;
  @Field(() => String, { nullable: true }) mediaId?: string;
  @Field(() => String, { nullable: true }) mediaPath?: string;
  @Field(() => Boolean, { nullable: true, description: 'true excludes blacklisted domains' }) blacklist?: boolean;
  @Field(() => Boolean, { nullable: true }) export?: boolean;
  @Field(() => [String], { nullable: true }) tags?: string[];
  @Field(() => [Int], { nullable: true }) sessions?: number[];
  @Field(() => String, { nullable: true }) pageUrl?: string;
  @Field(() => String, { nullable: true }) pageDatePublished?: string;
}

@InputType('V3MatchFilter', { description: 'The filters of GET /api/v3/matches/<kind>/ (each kind takes its own: press takes watermarked and the dates).' })
class V3MatchFilterInput {
  @Field(() => String, { nullable: true }) date?: string;
  @Field(() => String, { nullable: true }) dateGte?: string;
  @Field(() => String, { nullable: true }) dateLte?: string;
  @Field(() => String, { nullable: true }) dateGt?: string;
  @Field(() => String, { nullable: true }) dateLt?: string;
  @Field(() => Boolean, { nullable: true }) watermarked?: boolean;
  @Field(() => Boolean, { nullable: true }) exclusive?: boolean;
  @Field(() => Boolean, { nullable: true }) blacklist?: boolean;
  @Field(() => Int, { nullable: true }) sessionId?: number;
}

const V3_KEYS: Record<string, string> = { dateGte: 'date_gte', dateLte: 'date_lte', dateGt: 'date_gt', dateLt: 'date_lt', sessionId: 'session_id' };

@ObjectType('MatchPage')
class MatchPageType {
  @Field(() => Int) count!: number;
  @Field(() => String, { nullable: true, description: 'Cursor of the next page' }) next!: string | null;
  @Field(() => String, { nullable: true }) previous!: string | null;
  @Field(() => [GraphQLJSONObject], { description: 'v4 Match objects, as REST gives them' }) results!: Record<string, unknown>[];
}

const KEYS: Record<string, string> = {
  dateCreated: 'date_created', dateCreatedGte: 'date_created__gte', dateCreatedLte: 'date_created__lte', dateCreatedGt: 'date_created__gt',
  dateCreatedLt: 'date_created__lt', siteId: 'site.id', siteName: 'site.name', siteSuffix: 'site.suffix', siteDomain: 'site.domain',
  mediaId: 'media.id', mediaPath: 'media.path', pageUrl: 'page.url', pageDatePublished: 'page.date_published',
};

/** The GraphQL filter as the REST query string, so both go through one parser. */
export function toQuery(filter: MatchFilterInput | undefined): Record<string, QueryValue> {
  const q: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(filter ?? {})) {
    if (v === undefined || v === null) continue;
    q[KEYS[k] ?? k] = Array.isArray(v) ? v.map(String) : String(v);
  }
  return q;
}

@injectable()
@Resolver()
export class MatchesResolver {
  constructor(@inject(MatchQueryService) private readonly query: MatchQueryService) {}

  @Query(() => MatchPageType)
  async matches(
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => MatchFilterInput, { nullable: true }) filter?: MatchFilterInput,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ): Promise<MatchPageType> {
    const p = requirePrincipal(ctx);
    const page = await this.query.list(p.accountId, this.query.v4Filters(toQuery(filter)), cursor ?? undefined, Math.min(100, Math.max(1, pageSize ?? 100)));
    return {
      count: page.count,
      next: page.next && encodeCursor(page.next),
      previous: page.previous && encodeCursor(page.previous),
      results: await this.query.views(page.rows, matchV4, ctx.baseUrl),
    };
  }

  @Query(() => MatchPageType, { description: 'The v3 listings: kind web, press (issue, page_number, the printed image) or credit; results are the v3 REST objects.' })
  async v3Matches(
    @Arg('kind', () => String) kind: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => V3MatchFilterInput, { nullable: true }) filter?: V3MatchFilterInput,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ): Promise<MatchPageType> {
    const p = requirePrincipal(ctx);
    if (kind !== 'web' && kind !== 'press' && kind !== 'credit') throw notFound('kind is web, press or credit.');
    const q: Record<string, QueryValue> = {};
    for (const [k, v] of Object.entries(filter ?? {})) if (v !== undefined && v !== null) q[V3_KEYS[k] ?? k] = String(v);
    const page = await this.query.list(p.accountId, parseV3Filters(kind, q), cursor ?? undefined, Math.min(100, Math.max(1, pageSize ?? 100)));
    return {
      count: page.count,
      next: page.next && encodeCursor(page.next),
      previous: page.previous && encodeCursor(page.previous),
      results: await this.query.views(page.rows, matchV3, ctx.baseUrl),
    };
  }

  @Mutation(() => GraphQLJSONObject, { description: 'Changes the tags and export flag of a match.' })
  async updateMatch(
    @Arg('id', () => String) id: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('tags', () => [String], { nullable: true }) tags?: string[],
    @Arg('export', () => Boolean, { nullable: true }) exportFlag?: boolean,
  ): Promise<Record<string, unknown>> {
    const p = requirePrincipal(ctx);
    const change = parseMatchChange({ ...(tags ? { tags } : {}), ...(exportFlag !== undefined && exportFlag !== null ? { export: exportFlag } : {}) });
    if (!/^\d{1,15}$/.test(id) || !(await this.query.update(p.accountId, Number(id), change))) throw notFound('No such match.');
    return (await this.query.views([(await this.query.get(p.accountId, Number(id)))!], matchV4, ctx.baseUrl))[0]!;
  }
}
