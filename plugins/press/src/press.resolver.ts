import { inject, injectable } from 'inversify';
import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { fetchClientUrl } from '@filigrane/core';
import { SearchService } from '@filigrane/plugin-search';
import { parseIssueFields, PressIssueService } from './press-issue.service.js';
import { requireIngest } from './press-permission.js';

/** Press issues (ingest, status, list, delete) and document searches; objects are the REST ones. */
@injectable()
@Resolver()
export class PressResolver {
  constructor(
    @inject(PressIssueService) private readonly issues: PressIssueService,
    @inject(SearchService) private readonly searches: SearchService,
  ) {}

  @Query(() => [GraphQLJSONObject], { description: 'Press issues, newest first (press:ingest).' })
  async pressIssues(
    @Ctx() ctx: GraphQLContext,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ): Promise<Record<string, unknown>[]> {
    requireIngest(requirePrincipal(ctx));
    const size = Math.min(100, Math.max(1, pageSize ?? 100));
    const [rows] = await this.issues.list((Math.max(1, page ?? 1) - 1) * size, size);
    return rows.map((i) => this.issues.view(i, ctx.baseUrl));
  }

  @Query(() => GraphQLJSONObject, { description: 'A press issue and its analysis status (pages.done / pages.total).' })
  async pressIssue(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Record<string, unknown>> {
    requireIngest(requirePrincipal(ctx));
    return this.issues.view(await this.issues.get(id), ctx.baseUrl);
  }

  @Mutation(() => GraphQLJSONObject, { description: 'Ingests a press issue from a URL or data URI (press:ingest); poll pressIssue.' })
  async ingestPressIssue(
    @Arg('url', () => String) url: string,
    @Arg('name', () => String) name: string,
    @Arg('date', () => String) date: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('domain', () => String, { nullable: true }) domain?: string,
  ): Promise<Record<string, unknown>> {
    const p = requirePrincipal(ctx);
    requireIngest(p);
    parseIssueFields(name, date, domain);
    const data = await fetchClientUrl({ container: ctx.container, baseUrl: ctx.baseUrl, principal: p }, url);
    const sourceUrl = url.startsWith('data:') ? null : url;
    const issue = await this.issues.ingest({ data, name, date, domain, origin: 'url', ingestedBy: p.accountId, filename: null, sourceUrl, baseUrl: ctx.baseUrl });
    return this.issues.view(issue, ctx.baseUrl);
  }

  @Mutation(() => Boolean, { description: 'Deletes a press issue and its files (press:ingest); its matches stay.' })
  async deletePressIssue(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    requireIngest(requirePrincipal(ctx));
    await this.issues.delete(id);
    return true;
  }

  @Mutation(() => GraphQLJSONObject, { description: 'Searches a PDF (URL or data URI) for your media: asynchronous, poll `search(id)`.' })
  async documentSearch(
    @Arg('url', () => String) url: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('name', () => String, { nullable: true }) name?: string,
    @Arg('searchPath', () => String, { nullable: true }) searchPath?: string,
    @Arg('filterMarked', () => Boolean, { nullable: true }) filterMarked?: boolean,
  ): Promise<Record<string, unknown>> {
    const p = requirePrincipal(ctx);
    const data = await fetchClientUrl({ container: ctx.container, baseUrl: ctx.baseUrl, principal: p }, url);
    const body: Record<string, unknown> = { file: { kind: 'file', filename: null, contentType: 'application/pdf', data }, sync: false };
    if (name !== undefined && name !== null) body.name = name;
    if (searchPath !== undefined && searchPath !== null) body.search_path = searchPath;
    if (filterMarked !== undefined && filterMarked !== null) body.filter_marked = filterMarked;
    return (await this.searches.submit(body, { accountId: p.accountId, home: p.home, baseUrl: ctx.baseUrl })).body;
  }
}
