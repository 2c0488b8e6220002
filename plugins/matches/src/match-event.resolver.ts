import { injectable } from 'inversify';
import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { MatchEvent, requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { Match } from './match-object-types.js';
import { matchLoader } from './match-loader.js';

/** `MatchEvent.match` on the gateway's subscription object: the match as it is when the event is delivered. */
@injectable()
@Resolver(() => MatchEvent)
export class MatchEventFieldResolver {
  @FieldResolver(() => Match, { nullable: true, description: 'The match as it is now (null once deleted, and for credit matches, which are v3 only).' })
  async match(@Root() event: MatchEvent, @Ctx() ctx: GraphQLContext): Promise<Match | null> {
    return matchLoader(ctx, requirePrincipal(ctx).accountId).load(event.matchId);
  }
}
