import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Float, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import {
  camelCaseKeys, connectionFirst, connectionType, DateRangeFilter, filterInputType, filterToQuery, offsetConnection, offsetPage,
  offsetAfter, parseDateFilters, requestLoader, requirePrincipal, type Connection, type DateCondition, type GraphQLContext,
} from '@filigrane/core';
import { parseNewSession } from './crawl-settings.js';
import { batchView, CrawlService, sessionView, type BatchRow, type SessionRow } from './crawl.service.js';

@ObjectType('CrawlArtifactCount', { description: 'What a batch found of one kind, and its files (null when not written).' })
class CountGql {
  @Field(() => Int) count!: number;
  @Field(() => String, { nullable: true }) log?: string | null;
  @Field(() => String, { nullable: true }) tar?: string | null;
  @Field(() => String, { nullable: true }) warc?: string | null;
}

@ObjectType('CrawlSessionLimits')
class LimitsGql {
  @Field(() => Int) pages!: number;
  @Field(() => Float) bytes!: number;
  @Field(() => Float) seconds!: number;
}

@ObjectType('CrawlSessionProgress', { description: 'The current cycle so far.' })
class ProgressGql {
  @Field(() => Int) pages!: number;
  @Field(() => Float) bytes!: number;
  @Field(() => Int) images!: number;
}

@ObjectType('CrawlBatch', { description: 'One crawl cycle of a session (GET /api/v3/crawling/batches/<id>/).' })
export class CrawlBatch {
  @Field(() => Int) id!: number;
  @Field(() => String) url!: string;
  @Field(() => String) ctime!: string;
  @Field(() => Int) sessionId!: number;
  @Field(() => Int) crawlCycle!: number;
  @Field(() => CountGql) images!: CountGql;
  @Field(() => CountGql) videos!: CountGql;
  @Field(() => CountGql) documents!: CountGql;
  @Field(() => CountGql) pages!: CountGql;
  accountId!: number;
}

@ObjectType('CrawlSession', { description: 'A crawling session (GET /api/v3/crawling/sessions/<id>/).' })
export class CrawlSession {
  @Field(() => Int) id!: number;
  @Field(() => String) url!: string;
  @Field(() => String) ctime!: string;
  @Field(() => String) mtime!: string;
  @Field(() => String, { nullable: true }) stime!: string | null;
  @Field(() => String, { description: 'pending, running, paused, done or failed' }) state!: string;
  @Field(() => Int) cycleCount!: number;
  @Field(() => Float) crawlDelay!: number;
  @Field(() => Boolean) search!: boolean;
  @Field(() => Float) downloadDelay!: number;
  @Field(() => Float) downloadTimeout!: number;
  @Field(() => [String]) startUrls!: string[];
  @Field(() => String) site!: string;
  @Field(() => String, { nullable: true }) reason!: string | null;
  @Field(() => String, { nullable: true }) nextCrawl!: string | null;
  @Field(() => LimitsGql) limits!: LimitsGql;
  @Field(() => ProgressGql) progress!: ProgressGql;
  @Field(() => String, { description: 'The REST listing of its batches.' }) batchesUrl!: string;
  accountId!: number;
}

const CrawlSessionConnection = connectionType('CrawlSession', CrawlSession);
const CrawlBatchConnection = connectionType('CrawlBatch', CrawlBatch);

/** The REST lists' only filter: ctime, as a range (`ctime`, `ctime_lt`, `ctime_lte`, `ctime_gt`, `ctime_gte`). */
const CrawlFilter = filterInputType('CrawlFilter', { ctime: { type: 'date', sql: 'ctime' } }, {
  description: 'The filters of the crawling lists (GET /api/v3/crawling/sessions/, batches/): the creation time.',
  operatorTypes: { ctime: DateRangeFilter },
});
const ctimeOf = (filter: object | undefined) => parseDateFilters(filterToQuery(filter, CrawlFilter, (rest, op) => (op === 'equals' ? rest : `${rest}_${op}`)), 'ctime');

function sessionObject(baseUrl: string, accountId: number, r: SessionRow): CrawlSession {
  const { batches, ...view } = sessionView(baseUrl, r);
  return { ...camelCaseKeys<CrawlSession>(view), batchesUrl: batches, accountId };
}

function batchObject(baseUrl: string, accountId: number, r: BatchRow): CrawlBatch {
  const { session: _link, ...view } = batchView(baseUrl, r);
  return { ...camelCaseKeys<CrawlBatch>(view), sessionId: r.session_id, accountId };
}

/** Crawling sessions (with their batches) and their transitions, for the GraphQL API. */
@injectable()
@Resolver(() => CrawlSession)
export class CrawlerResolver {
  constructor(@inject(CrawlService) private readonly crawls: CrawlService) {}

  private view(ctx: GraphQLContext, r: SessionRow): CrawlSession {
    return sessionObject(ctx.baseUrl, requirePrincipal(ctx).accountId, r);
  }

  /**
   * A page of batches of each of the sessions a request shows: one query per request and page
   * (filter, offset, size), whatever the number of sessions.
   */
  private sessionBatches(ctx: GraphQLContext, accountId: number, ctime: DateCondition[], offset: number, limit: number) {
    return requestLoader<number, BatchRow[]>(ctx, `crawl-batches:${accountId}:${JSON.stringify(ctime)}:${offset}:${limit}`, async (ids) => {
      const found = await this.crawls.sessionBatches(accountId, ids, ctime, offset, limit);
      return ids.map((id) => found.get(id) ?? []);
    });
  }

  @Query(() => CrawlSessionConnection, { description: 'Crawling sessions of the account, newest first (GET /api/v3/crawling/sessions/).' })
  async crawlSessions(
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => CrawlFilter, { nullable: true }) filter?: object,
    @Arg('first', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<CrawlSession>> {
    const accountId = requirePrincipal(ctx).accountId;
    const ctime = ctimeOf(filter);
    return offsetPage(first, after, (o, l) => this.crawls.list(accountId, ctime, o, l), (r) => sessionObject(ctx.baseUrl, accountId, r));
  }

  @Query(() => CrawlSession, { nullable: true, description: 'One session; NOT_FOUND when there is none.' })
  async crawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<CrawlSession> {
    return this.view(ctx, await this.crawls.get(requirePrincipal(ctx).accountId, id));
  }

  @Query(() => CrawlBatchConnection, { description: 'Batches of every session of the account, newest first (GET /api/v3/crawling/batches/).' })
  async crawlBatches(
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => CrawlFilter, { nullable: true }) filter?: object,
    @Arg('first', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<CrawlBatch>> {
    const accountId = requirePrincipal(ctx).accountId;
    const ctime = ctimeOf(filter);
    return offsetPage(first, after, (o, l) => this.crawls.batches(accountId, null, ctime, o, l), (r) => batchObject(ctx.baseUrl, accountId, r));
  }

  @Query(() => CrawlBatch, { nullable: true, description: 'One batch; NOT_FOUND when there is none.' })
  async crawlBatch(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<CrawlBatch> {
    const accountId = requirePrincipal(ctx).accountId;
    return batchObject(ctx.baseUrl, accountId, await this.crawls.batch(accountId, id));
  }

  @FieldResolver(() => CrawlBatchConnection, {
    description: 'The session\'s batches, newest first: read for every session listed in one query (per filter, first and after).',
  })
  async batches(
    @Root() session: CrawlSession,
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => CrawlFilter, { nullable: true }) filter?: object,
    @Arg('first', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<CrawlBatch>> {
    const limit = connectionFirst(first);
    const offset = offsetAfter(after);
    // One row more than the page tells whether a next page follows.
    const rows = await this.sessionBatches(ctx, session.accountId, ctimeOf(filter), offset, limit + 1).load(session.id);
    return offsetConnection(rows.slice(0, limit), offset, rows.length > limit, (r) => batchObject(ctx.baseUrl, session.accountId, r));
  }

  @FieldResolver(() => CrawlBatch, { nullable: true, description: 'The newest batch (the current or last crawl), batched over the sessions listed.' })
  async latestBatch(@Root() session: CrawlSession, @Ctx() ctx: GraphQLContext): Promise<CrawlBatch | null> {
    const [row] = await this.sessionBatches(ctx, session.accountId, [], 0, 1).load(session.id);
    return row ? batchObject(ctx.baseUrl, session.accountId, row) : null;
  }

  @Mutation(() => CrawlSession, { nullable: true, description: 'Creates a session and queues its first crawl (POST /api/v3/crawling/sessions/).' })
  async startCrawlSession(
    @Arg('url', () => String) url: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('startUrls', () => [String], { nullable: true }) startUrls?: string[] | null,
    @Arg('search', () => Boolean, { nullable: true }) search?: boolean | null,
    @Arg('crawlDelay', () => Float, { nullable: true }) crawlDelay?: number | null,
    @Arg('downloadDelay', () => Float, { nullable: true }) downloadDelay?: number | null,
    @Arg('downloadTimeout', () => Float, { nullable: true }) downloadTimeout?: number | null,
  ): Promise<CrawlSession> {
    const input = parseNewSession({ url, start_urls: startUrls, search, crawl_delay: crawlDelay, download_delay: downloadDelay, download_timeout: downloadTimeout });
    return this.view(ctx, await this.crawls.create(requirePrincipal(ctx).accountId, input));
  }

  @Mutation(() => CrawlSession, { nullable: true, description: 'Starts the next crawl of a done or failed session.' })
  async crawlAgain(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<CrawlSession> {
    return this.view(ctx, await this.crawls.crawl(requirePrincipal(ctx).accountId, id));
  }

  @Mutation(() => CrawlSession, { nullable: true })
  async pauseCrawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<CrawlSession> {
    return this.view(ctx, await this.crawls.pause(requirePrincipal(ctx).accountId, id));
  }

  @Mutation(() => CrawlSession, { nullable: true })
  async resumeCrawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<CrawlSession> {
    return this.view(ctx, await this.crawls.resume(requirePrincipal(ctx).accountId, id));
  }

  @Mutation(() => Boolean, { nullable: true, description: 'Stops the crawl and removes the session and its batches (matches stay).' })
  async deleteCrawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await this.crawls.remove(requirePrincipal(ctx).accountId, id);
    return true;
  }
}

/** A batch's session, batched per request. */
@injectable()
@Resolver(() => CrawlBatch)
export class CrawlBatchResolver {
  constructor(@inject(CrawlService) private readonly crawls: CrawlService) {}

  @FieldResolver(() => CrawlSession, { nullable: true })
  async session(@Root() batch: CrawlBatch, @Ctx() ctx: GraphQLContext): Promise<CrawlSession | null> {
    const loader = requestLoader<number, SessionRow | null>(ctx, `crawl-sessions:${batch.accountId}`, async (ids) => {
      const rows = new Map((await this.crawls.sessionsByIds(batch.accountId, ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? null);
    });
    const row = await loader.load(batch.sessionId);
    return row && sessionObject(ctx.baseUrl, batch.accountId, row);
  }
}
