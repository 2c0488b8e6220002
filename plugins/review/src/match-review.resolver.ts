import { Ctx, FieldResolver, inject, injectable, requestLoader, requirePrincipal, Resolver, Root, type GraphQLContext } from '@filigrane/plugin-api';
import { Match } from '@filigrane/plugin-matches';
import { MatchReviewType, reviewType } from './review.resolver.js';
import { ReviewStore, type StateRow } from './review.service.js';

/** `Match.review` on the matches plugin's GraphQL object: one query per request for a whole list. */
@injectable()
@Resolver(() => Match)
export class MatchReviewFieldResolver {
  constructor(@inject(ReviewStore) private readonly reviews: ReviewStore) {}

  @FieldResolver(() => MatchReviewType, { description: "The match's review state (NEW when nobody reviewed it yet); its history: matchReviewHistory" })
  async review(@Root() match: Match, @Ctx() ctx: GraphQLContext): Promise<MatchReviewType> {
    const accountId = requirePrincipal(ctx).accountId;
    // The match came from the caller's own listing: only its row is read, batched per request.
    const loader = requestLoader<string, StateRow | null>(ctx, `review:${accountId}`, async (ids) => {
      const rows = await this.reviews.rows(accountId, [...ids]);
      return ids.map((id) => rows.get(id) ?? null);
    });
    const row = await loader.load(match.id);
    return reviewType(
      match.id,
      row
        ? { state: row.state, licenseId: row.license_id, note: row.note, automatic: row.automatic, changedAt: new Date(row.changed_at) }
        : { state: 'new', licenseId: null, note: null, automatic: false, changedAt: new Date(match.dateCreated) },
    );
  }
}
