import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, InputType, Int, Mutation, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { connectionType, offsetPage, requirePrincipal, type Connection, type GraphQLContext } from '@filigrane/core';
import { SearchResultType, toResult } from './search-object-types.js';
import { SearchService } from './search.service.js';
import { withResolvedFile } from './search-input.js';

@InputType('TextSearchInput')
class TextSearchInput {
  @Field(() => GraphQLJSONObject, { nullable: true }) metadata?: Record<string, unknown>;
  @Field(() => [String], { nullable: true, description: 'image, video or folder' }) type?: string[];
  @Field(() => String, { nullable: true }) filename?: string;
  @Field(() => String, { nullable: true, description: 'At least 3 characters, case sensitive.' }) filenameStartsWith?: string;
  @Field(() => Boolean, { nullable: true, defaultValue: true }) sync?: boolean;
}

const SearchConnection = connectionType('Search', SearchResultType);

@injectable()
@Resolver()
export class SearchResolver {
  constructor(@inject(SearchService) private readonly service: SearchService) {}

  @Mutation(() => SearchResultType, { description: 'Search media by metadata, type and file name.' })
  async textSearch(@Arg('input', () => TextSearchInput) input: TextSearchInput, @Ctx() ctx: GraphQLContext): Promise<SearchResultType> {
    const p = requirePrincipal(ctx);
    const body: Record<string, unknown> = {};
    if (input.metadata) body.metadata = input.metadata;
    if (input.type) body.type = input.type;
    if (input.filename) body.filename = input.filename;
    if (input.filenameStartsWith) body.filename__startswith = input.filenameStartsWith;
    if (input.sync !== undefined && input.sync !== null) body.sync = input.sync;
    return toResult((await this.service.submit(body, { accountId: p.accountId, home: p.home, baseUrl: ctx.baseUrl })).body);
  }

  @Mutation(() => SearchResultType, { description: 'Search by image: url is an http(s) URL or a data URI; the other arguments are the REST parameters.' })
  async imageSearch(
    @Arg('url', () => String) url: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('mode', () => String, { nullable: true }) mode?: string,
    @Arg('transforms', () => [String], { nullable: true }) transforms?: string[],
    @Arg('searchPath', () => String, { nullable: true }) searchPath?: string,
    @Arg('filterMarked', () => Boolean, { nullable: true }) filterMarked?: boolean,
    @Arg('categories', () => [String], { nullable: true }) categories?: string[],
    @Arg('name', () => String, { nullable: true }) name?: string,
    @Arg('sync', () => Boolean, { nullable: true }) sync?: boolean,
  ): Promise<SearchResultType> {
    const p = requirePrincipal(ctx);
    const body: Record<string, unknown> = { file: url };
    for (const [k, v] of Object.entries({ mode, transforms, search_path: searchPath, filter_marked: filterMarked, categories, name, sync })) {
      if (v !== undefined && v !== null) body[k] = v;
    }
    const resolved = await withResolvedFile({ container: ctx.container, baseUrl: ctx.baseUrl, principal: p }, body);
    return toResult((await this.service.submit(resolved, { accountId: p.accountId, home: p.home, baseUrl: ctx.baseUrl })).body);
  }

  @Query(() => SearchResultType, { nullable: true, description: 'An asynchronous search by id; NOT_FOUND when there is none.' })
  async search(@Arg('id', () => String) id: string, @Ctx() ctx: GraphQLContext): Promise<SearchResultType> {
    return toResult(await this.service.get(requirePrincipal(ctx).accountId, id, ctx.baseUrl));
  }

  @Query(() => SearchConnection, { description: 'The account\'s asynchronous searches, newest first (GET /api/v4/searches/).' })
  async searches(
    @Ctx() ctx: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: '1 to 100 (default 100).' }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): Promise<Connection<SearchResultType>> {
    const accountId = requirePrincipal(ctx).accountId;
    return offsetPage(first, after, (o, l) => this.service.list(accountId, o, l), (s) => toResult(this.service.view(s, ctx.baseUrl)));
  }
}
