import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Float, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { parseNewSession } from './crawl-settings.js';
import { batchView, CrawlService, sessionView, type SessionRow } from './crawl.service.js';

@ObjectType('CrawlArtifactCount')
class CountGql {
  @Field(() => Int) count!: number;
  @Field(() => String, { nullable: true }) log?: string | null;
  @Field(() => String, { nullable: true }) tar?: string | null;
  @Field(() => String, { nullable: true }) warc?: string | null;
}

@ObjectType('CrawlBatch')
class BatchGql {
  @Field(() => Int) id!: number;
  @Field(() => String) url!: string;
  @Field(() => String) ctime!: string;
  @Field(() => Int) crawl_cycle!: number;
  @Field(() => CountGql) images!: CountGql;
  @Field(() => CountGql) videos!: CountGql;
  @Field(() => CountGql) documents!: CountGql;
  @Field(() => CountGql) pages!: CountGql;
}

@ObjectType('CrawlSession')
class SessionGql {
  @Field(() => Int) id!: number;
  @Field(() => String) url!: string;
  @Field(() => String) ctime!: string;
  @Field(() => String) mtime!: string;
  @Field(() => String, { nullable: true }) stime!: string | null;
  @Field(() => String) state!: string;
  @Field(() => Int) cycle_count!: number;
  @Field(() => Float) crawl_delay!: number;
  @Field(() => Boolean) search!: boolean;
  @Field(() => Float) download_delay!: number;
  @Field(() => Float) download_timeout!: number;
  @Field(() => [String]) start_urls!: string[];
  @Field(() => String, { nullable: true }) reason!: string | null;
  @Field(() => String, { nullable: true }) next_crawl!: string | null;
}

/** Crawling sessions (with their batches) and their transitions, for the GraphQL API. */
@injectable()
@Resolver(() => SessionGql)
export class CrawlerResolver {
  constructor(@inject(CrawlService) private readonly crawls: CrawlService) {}

  private view(ctx: GraphQLContext, r: SessionRow): SessionGql {
    return sessionView(ctx.baseUrl, r) as unknown as SessionGql;
  }

  @Query(() => [SessionGql], { description: 'Crawling sessions of the account, newest first (at most 100).' })
  async crawlSessions(@Ctx() ctx: GraphQLContext): Promise<SessionGql[]> {
    const [rows] = await this.crawls.list(requirePrincipal(ctx).accountId, [], 0, 100);
    return rows.map((r) => this.view(ctx, r));
  }

  @Query(() => SessionGql)
  async crawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<SessionGql> {
    return this.view(ctx, await this.crawls.get(requirePrincipal(ctx).accountId, id));
  }

  @FieldResolver(() => [BatchGql])
  async batches(@Root() session: SessionGql, @Ctx() ctx: GraphQLContext): Promise<BatchGql[]> {
    const [rows] = await this.crawls.batches(requirePrincipal(ctx).accountId, session.id, [], 0, 100);
    return rows.map((r) => batchView(ctx.baseUrl, r) as unknown as BatchGql);
  }

  @Mutation(() => SessionGql, { description: 'Creates a session and queues its first crawl.' })
  async startCrawlSession(
    @Arg('url', () => String) url: string,
    @Arg('start_urls', () => [String], { nullable: true }) startUrls: string[] | null,
    @Arg('search', () => Boolean, { nullable: true }) search: boolean | null,
    @Arg('crawl_delay', () => Float, { nullable: true }) crawlDelay: number | null,
    @Arg('download_delay', () => Float, { nullable: true }) downloadDelay: number | null,
    @Arg('download_timeout', () => Float, { nullable: true }) downloadTimeout: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SessionGql> {
    const input = parseNewSession({ url, start_urls: startUrls, search, crawl_delay: crawlDelay, download_delay: downloadDelay, download_timeout: downloadTimeout });
    return this.view(ctx, await this.crawls.create(requirePrincipal(ctx).accountId, input));
  }

  @Mutation(() => SessionGql, { description: 'Starts the next crawl of a done or failed session.' })
  async crawlAgain(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<SessionGql> {
    return this.view(ctx, await this.crawls.crawl(requirePrincipal(ctx).accountId, id));
  }

  @Mutation(() => SessionGql)
  async pauseCrawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<SessionGql> {
    return this.view(ctx, await this.crawls.pause(requirePrincipal(ctx).accountId, id));
  }

  @Mutation(() => SessionGql)
  async resumeCrawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<SessionGql> {
    return this.view(ctx, await this.crawls.resume(requirePrincipal(ctx).accountId, id));
  }

  @Mutation(() => Boolean, { description: 'Stops the crawl and removes the session and its batches (matches stay).' })
  async deleteCrawlSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await this.crawls.remove(requirePrincipal(ctx).accountId, id);
    return true;
  }
}
