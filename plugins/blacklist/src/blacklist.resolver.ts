import { inject, injectable } from 'inversify';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { BlacklistService, parseDomain } from './blacklist.service.js';

@injectable()
@Resolver()
export class BlacklistResolver {
  constructor(@inject(BlacklistService) private readonly blacklist: BlacklistService) {}

  @Query(() => [String], { description: 'Blacklisted domains; matches on them (and their subdomains) are filtered out.' })
  async blacklistedDomains(@Ctx() ctx: GraphQLContext): Promise<string[]> {
    return this.blacklist.list(requirePrincipal(ctx).accountId);
  }

  @Mutation(() => String, { description: 'Adds a domain (normalised); returns it.' })
  async blacklistDomain(@Arg('url', () => String) url: string, @Ctx() ctx: GraphQLContext): Promise<string> {
    return (await this.blacklist.add(requirePrincipal(ctx).accountId, parseDomain({ url }))).domain;
  }

  @Mutation(() => Boolean)
  async unblacklistDomain(@Arg('url', () => String) url: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await this.blacklist.remove(requirePrincipal(ctx).accountId, parseDomain({ url }));
    return true;
  }
}
