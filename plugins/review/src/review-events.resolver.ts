import { Arg, Ctx, eventSubscription, Field, FieldResolver, ID, injectable, ObjectType, requirePrincipal, Resolver, Root, Subscription, type GraphQLContext, type LiveEvent } from '@filigrane/plugin-api';
import { Match, matchLoader } from '@filigrane/plugin-matches';
import type { MatchReviewedData } from './review.api.js';
import { ReviewActorType, ReviewStateValue } from './review.resolver.js';
import type { ReviewState } from './review-states.js';

@ObjectType('MatchReviewedEvent', { description: 'A match\'s review state changed (or got a note): `match.reviewed`, one per match, once its transaction committed' })
export class MatchReviewedEvent {
  @Field(() => ID, { description: 'The event (the same on a redelivery)' }) eventId!: string;
  @Field(() => Date) occurredAt!: Date;
  @Field(() => ID) matchId!: string;
  @Field(() => ReviewStateValue) state!: ReviewState;
  @Field(() => ReviewStateValue) previousState!: ReviewState;
  @Field(() => ID, { nullable: true, description: 'The licensee it is licensed under' }) licenseId!: string | null;
  @Field(() => String, { nullable: true }) note!: string | null;
  @Field(() => Boolean, { description: 'Set by a licensee rule, not by a person' }) automatic!: boolean;
  @Field(() => ReviewActorType, { description: 'Who made the change (username: in matchReviewHistory)' }) actor!: ReviewActorType;
  @Field(() => Date) changedAt!: Date;
}

/** `matchReviewed`: the account's review changes as they commit, from the outbox like every subscription. */
@injectable()
@Resolver(() => MatchReviewedEvent)
export class ReviewEventsResolver {
  @Subscription(() => MatchReviewedEvent, {
    description: 'Review changes of the account\'s matches (match.reviewed); `states` keeps those to these states.',
    subscribe: eventSubscription<{ states?: ReviewState[] | null }>(['match.reviewed'], (e, args) => !args.states?.length || args.states.includes((e.data as { state?: ReviewState }).state!)),
  })
  matchReviewed(@Root() event: LiveEvent, @Arg('states', () => [ReviewStateValue], { nullable: true }) _states?: ReviewState[]): MatchReviewedEvent {
    const d = event.data as unknown as MatchReviewedData;
    return {
      eventId: event.id,
      occurredAt: event.occurredAt,
      matchId: String(d.id),
      state: d.state,
      previousState: d.previous_state,
      licenseId: d.license_id,
      note: d.note,
      automatic: d.automatic,
      actor: { type: d.actor.type, accountId: d.actor.account_id, username: null, applicationId: d.actor.application_id },
      changedAt: new Date(d.changed_at),
    };
  }

  @FieldResolver(() => Match, { nullable: true, description: 'The match as it is now (null once deleted); its review: match.review' })
  async match(@Root() event: MatchReviewedEvent, @Ctx() ctx: GraphQLContext): Promise<Match | null> {
    return matchLoader(ctx, requirePrincipal(ctx).accountId).load(event.matchId);
  }
}
