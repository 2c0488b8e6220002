import { requestLoader, type GraphQLContext } from '@filigrane/core';
import { MatchQueryService } from './match-query.service.js';
import type { Match } from './match-object-types.js';
import { matchObject } from './matches.resolver.js';

/**
 * The caller's v4 matches by id as GraphQL `Match` objects (null when deleted, not theirs, or a
 * credit match), batched per request: how other plugins' objects (a review event, a case) link
 * to the match they are about.
 */
export function matchLoader(ctx: GraphQLContext, accountId: number) {
  return requestLoader<string, Match | null>(ctx, `match:${accountId}`, async (ids) => {
    const rows = await ctx.container.get(MatchQueryService).getMany(accountId, ids);
    return ids.map((id) => {
      const row = rows.get(id);
      return row ? matchObject(row, ctx.baseUrl) : null;
    });
  });
}
