import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Float, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { camelCaseKeys, connectionType, offsetPage, requirePrincipal, type Connection, type GraphQLContext } from '@filigrane/core';
import { fetchClientUrl } from '@filigrane/core';
import { SearchResult, searchResult, SearchService } from '@filigrane/plugin-search';
import type { PressIssue as PressIssueEntity } from './press-issue.entity.js';
import { parseIssueFields, PressIssueService } from './press-issue.service.js';
import { requireIngest } from './press-permission.js';

@ObjectType('PressIssuePages')
class PressIssuePages {
  @Field(() => Int) done!: number;
  @Field(() => Int, { nullable: true, description: 'null until the PDF is opened (pending)' }) total!: number | null;
}

@ObjectType('PressIssue', { description: 'An ingested press issue and its analysis (GET /api/v4/press/issues/<id>/).' })
export class PressIssue {
  @Field(() => Int) id!: number;
  @Field(() => String) url!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'Publication date (YYYY-MM-DD).' }) date!: string;
  @Field(() => String, { nullable: true }) domain!: string | null;
  @Field(() => String, { description: 'upload, url or inbox' }) origin!: string;
  @Field(() => String, { nullable: true }) filename!: string | null;
  @Field(() => String, { nullable: true }) sourceUrl!: string | null;
  @Field(() => Float, { description: 'Bytes.' }) size!: number;
  @Field(() => String) sha256!: string;
  @Field(() => String, { description: 'pending, analysing, done or failed' }) status!: string;
  @Field(() => PressIssuePages) pages!: PressIssuePages;
  @Field(() => Int) imagesFound!: number;
  @Field(() => Int) matchesFound!: number;
  @Field(() => Int) creditsFound!: number;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => String) created!: string;
  @Field(() => String, { nullable: true }) started!: string | null;
  @Field(() => String, { nullable: true }) finished!: string | null;
}

const PressIssueConnection = connectionType('PressIssue', PressIssue);

/** Press issues (ingest, status, list, delete) and document searches; objects are the REST ones in camelCase. */
@injectable()
@Resolver()
export class PressResolver {
  constructor(
    @inject(PressIssueService) private readonly issues: PressIssueService,
    @inject(SearchService) private readonly searches: SearchService,
  ) {}

  private object(i: PressIssueEntity, baseUrl: string): PressIssue {
    return camelCaseKeys<PressIssue>(this.issues.view(i, baseUrl));
  }

  @Query(() => PressIssueConnection, { description: 'Press issues, newest first (GET /api/v4/press/issues/; press:ingest).' })
  async pressIssues(
    @Ctx() ctx: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<PressIssue>> {
    requireIngest(requirePrincipal(ctx));
    return offsetPage(first, after, (o, l) => this.issues.list(o, l), (i) => this.object(i, ctx.baseUrl));
  }

  @Query(() => PressIssue, { nullable: true, description: 'A press issue and its analysis status (pages.done / pages.total); NOT_FOUND when there is none.' })
  async pressIssue(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<PressIssue> {
    requireIngest(requirePrincipal(ctx));
    return this.object(await this.issues.get(id), ctx.baseUrl);
  }

  @Mutation(() => PressIssue, { nullable: true, description: 'Ingests a press issue from a URL or data URI (press:ingest); poll pressIssue.' })
  async ingestPressIssue(
    @Arg('url', () => String) url: string,
    @Arg('name', () => String) name: string,
    @Arg('date', () => String) date: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('domain', () => String, { nullable: true }) domain?: string,
  ): Promise<PressIssue> {
    const p = requirePrincipal(ctx);
    requireIngest(p);
    parseIssueFields(name, date, domain);
    const data = await fetchClientUrl({ container: ctx.container, baseUrl: ctx.baseUrl, principal: p }, url);
    const sourceUrl = url.startsWith('data:') ? null : url;
    const issue = await this.issues.ingest({ data, name, date, domain, origin: 'url', ingestedBy: p.accountId, filename: null, sourceUrl, baseUrl: ctx.baseUrl });
    return this.object(issue, ctx.baseUrl);
  }

  @Mutation(() => Boolean, { nullable: true, description: 'Deletes a press issue and its files (press:ingest); its matches stay.' })
  async deletePressIssue(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    requireIngest(requirePrincipal(ctx));
    await this.issues.delete(id);
    return true;
  }

  @Mutation(() => SearchResult, { nullable: true, description: 'Searches a PDF (URL or data URI) for your media: asynchronous, poll `search(id)`.' })
  async documentSearch(
    @Arg('url', () => String) url: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('name', () => String, { nullable: true }) name?: string,
    @Arg('searchPath', () => String, { nullable: true }) searchPath?: string,
    @Arg('filterMarked', () => Boolean, { nullable: true }) filterMarked?: boolean,
  ): Promise<SearchResult> {
    const p = requirePrincipal(ctx);
    const data = await fetchClientUrl({ container: ctx.container, baseUrl: ctx.baseUrl, principal: p }, url);
    const body: Record<string, unknown> = { file: { kind: 'file', filename: null, contentType: 'application/pdf', data }, sync: false };
    if (name !== undefined && name !== null) body.name = name;
    if (searchPath !== undefined && searchPath !== null) body.search_path = searchPath;
    if (filterMarked !== undefined && filterMarked !== null) body.filter_marked = filterMarked;
    return searchResult((await this.searches.submit(body, { accountId: p.accountId, home: p.home, baseUrl: ctx.baseUrl })).body);
  }
}
