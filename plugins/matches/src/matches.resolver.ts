import { inject, injectable } from 'inversify';
import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import {
  camelCaseKeys, encodeCursor, filterInputType, filterToQuery, graphqlPageSize, mediaLoader, notFound, requirePrincipal,
  type GraphQLContext, type MediaRecord,
} from '@filigrane/core';
import { mediaObject } from '@filigrane/plugin-media';
import { parseV3Filters, V3_FIELDS, V4_FIELDS } from './match-filters.js';
import { MatchQueryService, type MatchRow } from './match-query.service.js';
import { parseMatchChange } from './match-change.js';
import { matchMediaV4, matchV3, matchV4 } from './match-view.js';
import { Match, MatchMedia, MatchPage, V3Match, V3MatchPage } from './match-object-types.js';

const blacklist = { type: () => Boolean, description: 'true leaves out matches on your blacklisted domains (REST `blacklist`).' };

/**
 * Every filter of GET /api/v4/matches/, with typed operators (the REST parser reads them); the filters
 * other plugins contribute (MATCH_FILTERS: `reviewState`) are added before the schema is built.
 */
export const MatchFilter = filterInputType('MatchFilter', V4_FIELDS, {
  description: 'The filters of GET /api/v4/matches/: one operator object per field (dates as ISO dates or date-times).',
  extra: { blacklist },
});

/** The filters of the three v3 listings; each listing takes its own (REST answers which one it refuses). */
const V3MatchFilter = filterInputType('V3MatchFilter', { ...V3_FIELDS.web, ...V3_FIELDS.press, ...V3_FIELDS.credit }, {
  description: 'The filters of GET /api/v3/matches/<kind>/: web takes all but pageUrl, press id/date/watermarked, credit id/date/pageUrl.',
  extra: { blacklist },
});

/** The v4 match object of a row; its media is resolved on demand, batched per request. */
export function matchObject(r: MatchRow, baseUrl: string): Match {
  const { media: _media, ...view } = matchV4(r, null, baseUrl);
  return { ...camelCaseKeys<Match>(view), region: r.region ?? null, mediaId: r.media_id === null ? null : Number(r.media_id), accountId: r.account_id };
}

@injectable()
@Resolver(() => Match)
export class MatchesResolver {
  constructor(@inject(MatchQueryService) private readonly query: MatchQueryService) {}

  @Query(() => MatchPage, { description: 'v4 matches, newest first (GET /api/v4/matches/): filters, cursor paging.' })
  async matches(
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => MatchFilter, { nullable: true }) filter?: object,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('pageSize', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) pageSize?: number,
  ): Promise<MatchPage> {
    const p = requirePrincipal(ctx);
    const size = graphqlPageSize(pageSize);
    const page = await this.query.list(p.accountId, this.query.v4Filters(filterToQuery(filter, MatchFilter)), cursor ?? undefined, size);
    return {
      count: page.count,
      next: page.next && encodeCursor(page.next),
      previous: page.previous && encodeCursor(page.previous),
      results: page.rows.map((r) => matchObject(r, ctx.baseUrl)),
    };
  }

  @Query(() => Match, { nullable: true, description: 'One v4 match (GET /api/v4/matches/<id>/); NOT_FOUND when there is none.' })
  async match(@Arg('id', () => String) id: string, @Ctx() ctx: GraphQLContext): Promise<Match> {
    const p = requirePrincipal(ctx);
    const row = /^\d{1,15}$/.test(id) ? await this.query.get(p.accountId, Number(id)) : null;
    if (!row) throw notFound('No such match.');
    return matchObject(row, ctx.baseUrl);
  }

  @FieldResolver(() => MatchMedia, { nullable: true, description: 'The registered media (null if it was deleted meanwhile).' })
  async media(@Root() match: Match, @Ctx() ctx: GraphQLContext): Promise<MatchMedia | null> {
    if (match.mediaId === null) return null;
    const media = await mediaLoader(ctx, match.accountId).load(match.mediaId);
    return media && camelCaseKeys<MatchMedia>(matchMediaV4(media, ctx.baseUrl));
  }

  @Query(() => V3MatchPage, { description: 'The v3 listings (GET /api/v3/matches/<kind>/): kind web, press or credit.' })
  async v3Matches(
    @Arg('kind', () => String) kind: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => V3MatchFilter, { nullable: true }) filter?: object,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('pageSize', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) pageSize?: number,
  ): Promise<V3MatchPage> {
    const p = requirePrincipal(ctx);
    if (kind !== 'web' && kind !== 'press' && kind !== 'credit') throw notFound('kind is web, press or credit.');
    const size = graphqlPageSize(pageSize);
    const page = await this.query.list(p.accountId, parseV3Filters(kind, filterToQuery(filter, V3MatchFilter)), cursor ?? undefined, size);
    return {
      count: page.count,
      next: page.next && encodeCursor(page.next),
      previous: page.previous && encodeCursor(page.previous),
      // The list's media in one query (views); paths and video are the media plugin's objects.
      results: await this.query.views(page.rows, (r, media, base) => v3Object(r, media, base), ctx.baseUrl) as unknown as V3Match[],
    };
  }

  @Query(() => V3Match, { nullable: true, description: 'One v3 match (GET /api/v3/matches/<kind>/<id>/); NOT_FOUND when there is none.' })
  async v3Match(@Arg('kind', () => String) kind: string, @Arg('id', () => String) id: string, @Ctx() ctx: GraphQLContext): Promise<V3Match> {
    const p = requirePrincipal(ctx);
    if (kind !== 'web' && kind !== 'press' && kind !== 'credit') throw notFound('kind is web, press or credit.');
    const row = /^\d{1,15}$/.test(id) ? await this.query.get(p.accountId, Number(id), kind) : null;
    const [view] = row ? await this.query.views([row], (r, media, base) => v3Object(r, media, base), ctx.baseUrl) : [];
    if (!view) throw notFound('No such match.');
    return view as unknown as V3Match;
  }

  @Mutation(() => Match, { nullable: true, description: 'Changes the tags and export flag of a match (PATCH /api/v4/matches/<id>/).' })
  async updateMatch(
    @Arg('id', () => String) id: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('tags', () => [String], { nullable: true }) tags?: string[],
    @Arg('export', () => Boolean, { nullable: true }) exportFlag?: boolean,
  ): Promise<Match> {
    const p = requirePrincipal(ctx);
    const change = parseMatchChange({ ...(tags ? { tags } : {}), ...(exportFlag !== undefined && exportFlag !== null ? { export: exportFlag } : {}) });
    if (!/^\d{1,15}$/.test(id) || !(await this.query.update(p.accountId, Number(id), change))) throw notFound('No such match.');
    return matchObject((await this.query.get(p.accountId, Number(id)))!, ctx.baseUrl);
  }
}

/** The v3 object of a row: the REST view in camelCase, its media as the media plugin's objects. */
function v3Object(r: MatchRow, media: MediaRecord | null, baseUrl: string): Record<string, unknown> {
  const view = camelCaseKeys<Record<string, unknown>>(matchV3(r, media, baseUrl));
  if (media && view.paths) view.paths = [mediaObject(media, baseUrl)];
  if (media && view.video) view.video = mediaObject(media, baseUrl).video;
  return view;
}
