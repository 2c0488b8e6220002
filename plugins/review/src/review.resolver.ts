import {
  Arg,
  Ctx,
  Field,
  ID,
  inject,
  injectable,
  InputType,
  Int,
  Mutation,
  ObjectType,
  Query,
  registerEnumType,
  Resolver,
  requirePrincipal,
  notFound,
  validationError,
  pageRequest,
  type ErrorItem,
  type GraphQLContext,
  type QueryValue,
} from '@filigrane/plugin-api';
import { parseLicensee, type LicenseeInput } from './licensee-input.js';
import { LicenseeService, type LicenseeRow } from './licensee.service.js';
import type { MatchReview, ReviewChange } from './review.api.js';
import { isMatchId, matchIds } from './review-input.js';
import { ReviewStore } from './review.service.js';
import type { ReviewState } from './review-states.js';

/** GraphQL names in capitals, REST values as they are. */
export const ReviewStateValue = { NEW: 'new', UNSURE: 'unsure', LICENSED: 'licensed', INFRINGING: 'infringing', NOT_A_MATCH: 'not_a_match', IGNORED: 'ignored' } as const;
registerEnumType(ReviewStateValue, { name: 'ReviewState', description: 'Where the rights holder stands on a match (a match nobody reviewed is NEW)' });

@ObjectType('MatchReview', { description: "A match's review state" })
export class MatchReviewType {
  @Field(() => ID) matchId!: string;
  @Field(() => ReviewStateValue) state!: ReviewState;
  @Field(() => ID, { nullable: true, description: 'The licensee it is licensed under' }) licenseId!: string | null;
  @Field(() => String, { nullable: true }) note!: string | null;
  @Field(() => Boolean, { description: 'Set by a licensee rule, not by a person' }) automatic!: boolean;
  @Field(() => Date, { description: 'Last change; for a match never reviewed, when it was first seen' }) changedAt!: Date;
}

@ObjectType('ReviewActor', { description: 'Who made a review change' })
export class ReviewActorType {
  @Field(() => String, { description: 'account, application (an OAuth application) or licensee (a licensee rule)' }) type!: string;
  @Field(() => Int, { nullable: true }) accountId!: number | null;
  @Field(() => String, { nullable: true }) username!: string | null;
  @Field(() => Int, { nullable: true }) applicationId!: number | null;
}

@ObjectType('ReviewChange', { description: "One entry of a match's review history" })
export class ReviewChangeType {
  @Field(() => ID) id!: string;
  @Field(() => ID) matchId!: string;
  @Field(() => ReviewStateValue) state!: ReviewState;
  @Field(() => ReviewStateValue) previousState!: ReviewState;
  @Field(() => ID, { nullable: true }) licenseId!: string | null;
  @Field(() => String, { nullable: true }) note!: string | null;
  @Field(() => ReviewActorType) actor!: ReviewActorType;
  @Field(() => Date) changedAt!: Date;
}

@ObjectType('ReviewResult', { description: 'What a review mutation changed' })
export class ReviewResultType {
  @Field(() => ReviewStateValue) state!: ReviewState;
  @Field(() => Int, { description: 'Matches named or selected' }) matched!: number;
  @Field(() => Int, { description: 'Matches whose state changed (or that got a note)' }) changed!: number;
}

@ObjectType('Licensee', { description: "Who may use the account's media" })
export class LicenseeType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) domain!: string;
  @Field(() => Boolean) includeSubdomains!: boolean;
  @Field(() => String, { nullable: true }) mediaPath!: string | null;
  @Field(() => ID, { nullable: true }) mediaId!: string | null;
  @Field(() => Date, { nullable: true }) validFrom!: Date | null;
  @Field(() => Date, { nullable: true }) validUntil!: Date | null;
  @Field(() => String, { nullable: true, description: 'The contract number' }) reference!: string | null;
  @Field(() => Date) created!: Date;
  @Field(() => Date) updated!: Date;
}

@ObjectType('MatchReviewListItem', { description: 'A review in the list of reviews, with what identifies its match (as GET /api/v4/matches/review/ lists it)' })
export class MatchReviewListItemType extends MatchReviewType {
  @Field(() => String, { nullable: true }) pageUrl!: string | null;
  @Field(() => String, { nullable: true }) imageUrl!: string | null;
  @Field(() => String, { nullable: true }) siteDomain!: string | null;
  @Field(() => ID, { nullable: true }) mediaId!: string | null;
}

@ObjectType('MatchReviewPage', { description: 'Reviews of the matches a filter selects, in match id order' })
export class MatchReviewPageType {
  @Field(() => Int) count!: number;
  @Field(() => String, { nullable: true, description: 'Cursor of the next page' }) next!: string | null;
  @Field(() => [MatchReviewListItemType]) results!: MatchReviewListItemType[];
}

@ObjectType('LicenseePage')
export class LicenseePageType {
  @Field(() => Int) count!: number;
  @Field(() => [LicenseeType]) results!: LicenseeType[];
}

@InputType('MatchFilterParam', { description: 'One query parameter of GET /api/v4/matches/ (name as in REST: "site.domain", "review_state__in", "!tags")' })
export class MatchFilterParamInput {
  @Field(() => String) name!: string;
  @Field(() => String) value!: string;
}

@InputType('LicenseeInput', { description: 'Dates as YYYY-MM-DD (valid_until: through that day) or ISO 8601 date-times' })
export class LicenseeInputType {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) domain?: string;
  @Field(() => Boolean, { nullable: true }) includeSubdomains?: boolean;
  @Field(() => String, { nullable: true }) mediaPath?: string | null;
  @Field(() => ID, { nullable: true }) mediaId?: string | null;
  @Field(() => String, { nullable: true }) validFrom?: string | null;
  @Field(() => String, { nullable: true }) validUntil?: string | null;
  @Field(() => String, { nullable: true }) reference?: string | null;
}

export const reviewType = (matchId: string, r: MatchReview): MatchReviewType => ({ matchId, ...r });
const changeType = (c: ReviewChange): ReviewChangeType => ({ ...c });
const licenseeType = (r: LicenseeRow): LicenseeType => ({
  id: r.id, name: r.name, domain: r.domain, includeSubdomains: r.include_subdomains, mediaPath: r.media_path, mediaId: r.media_id,
  validFrom: r.valid_from && new Date(r.valid_from), validUntil: r.valid_until && new Date(r.valid_until), reference: r.reference,
  created: new Date(r.created), updated: new Date(r.updated),
});

/** Filter parameters as the REST query string (a repeated name is a list, as in a URL). */
function queryOf(filter: MatchFilterParamInput[]): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = Object.create(null) as Record<string, QueryValue>;
  for (const { name, value } of filter) {
    const prev = query[name];
    query[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  return query;
}

/** The GraphQL input as the REST body, so both go through one parser (names in snake case; absent stays absent). */
function licenseeBody(input: LicenseeInputType, partial: boolean): LicenseeInput {
  const keys: Record<string, string> = { includeSubdomains: 'include_subdomains', mediaPath: 'media_path', mediaId: 'media_id', validFrom: 'valid_from', validUntil: 'valid_until' };
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) body[keys[k] ?? k] = v;
  return parseLicensee(body, partial);
}

@injectable()
@Resolver()
export class ReviewResolver {
  constructor(
    @inject(ReviewStore) private readonly reviews: ReviewStore,
    @inject(LicenseeService) private readonly licenseeService: LicenseeService,
  ) {}

  @Query(() => [MatchReviewType], { description: "Review states of the account's matches among these ids (others are left out)" })
  async matchReviews(@Arg('matchIds', () => [ID]) ids: string[], @Ctx() ctx: GraphQLContext): Promise<MatchReviewType[]> {
    const errors: ErrorItem[] = [];
    const checked = matchIds(ids, errors, 'matchIds');
    if (!checked) throw validationError(errors);
    const states = await this.reviews.states(requirePrincipal(ctx).accountId, checked);
    return checked.filter((id) => states.has(id)).map((id) => reviewType(id, states.get(id)!));
  }

  @Query(() => MatchReviewPageType, { description: 'Reviews of the matches the filters of GET /api/v4/matches/ select (review_state included), in match id order (GET /api/v4/matches/review/)' })
  async matchReviewList(
    @Ctx() ctx: GraphQLContext,
    @Arg('filter', () => [MatchFilterParamInput], { nullable: true }) filter?: MatchFilterParamInput[],
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ): Promise<MatchReviewPageType> {
    const accountId = requirePrincipal(ctx).accountId;
    if (cursor != null && !isMatchId(cursor)) throw validationError([{ field: 'cursor', code: 'invalid_cursor', details: 'cursor is the value next carries.' }]);
    const query = queryOf(filter ?? []);
    const size = pageRequest(1, pageSize ?? 100).pageSize;
    const [count, page] = await Promise.all([this.reviews.count(accountId, query), this.reviews.listPage(accountId, query, cursor ?? undefined, size)]);
    const last = page.items[page.items.length - 1];
    return { count, next: page.more && last ? last.ref.id : null, results: page.items.map(({ ref, review }) => ({ ...reviewType(ref.id, review), pageUrl: ref.pageUrl, imageUrl: ref.imageUrl, siteDomain: ref.siteDomain, mediaId: ref.mediaId })) };
  }

  @Query(() => [ReviewChangeType], { description: "A match's review history, oldest first" })
  async matchReviewHistory(@Arg('matchId', () => ID) matchId: string, @Ctx() ctx: GraphQLContext): Promise<ReviewChangeType[]> {
    const history = await this.reviews.history(requirePrincipal(ctx).accountId, matchId);
    if (!history) throw notFound('No such match.');
    return history.map(changeType);
  }

  @Mutation(() => ReviewResultType, { description: 'Sets the review state of matches named by id, or selected by the filters of the match list' })
  async reviewMatches(
    @Arg('state', () => ReviewStateValue) state: ReviewState,
    @Ctx() ctx: GraphQLContext,
    @Arg('matchIds', () => [ID], { nullable: true }) ids?: string[],
    @Arg('filter', () => [MatchFilterParamInput], { nullable: true, description: 'An empty list selects every match' }) filter?: MatchFilterParamInput[],
    @Arg('note', () => String, { nullable: true }) note?: string,
    @Arg('licenseId', () => ID, { nullable: true }) licenseId?: string,
  ): Promise<ReviewResultType> {
    const p = requirePrincipal(ctx);
    const errors: ErrorItem[] = [];
    if ((ids == null) === (filter == null)) errors.push({ field: 'matchIds', code: 'invalid', details: 'Give matchIds or filter, one of them.' });
    const checked = ids != null ? matchIds(ids, errors, 'matchIds') : undefined;
    if (filter != null && licenseId != null) errors.push({ field: 'licenseId', code: 'invalid', details: 'licenseId goes with matchIds, not with a filter.' });
    if (errors.length) throw validationError(errors);
    if (checked) return { state, ...(await this.reviews.setState(p, checked, state, note ?? undefined, { licenseId: licenseId ?? undefined })) };
    return { state, ...(await this.reviews.setStateByFilter(p, queryOf(filter!), state, note ?? undefined)) };
  }

  @Query(() => LicenseePageType)
  async licensees(
    @Ctx() ctx: GraphQLContext,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
  ): Promise<LicenseePageType> {
    const req = pageRequest(page ?? 1, pageSize ?? 100);
    const { rows, count } = await this.licenseeService.list(requirePrincipal(ctx).accountId, req.offset, req.pageSize);
    return { count, results: rows.map(licenseeType) };
  }

  @Query(() => LicenseeType)
  async licensee(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<LicenseeType> {
    return licenseeType(await this.licenseeService.get(requirePrincipal(ctx).accountId, id));
  }

  @Mutation(() => LicenseeType, { description: 'Adds a licensee (name and domain required); matches still new that it covers become licensed' })
  async createLicensee(@Arg('input', () => LicenseeInputType) input: LicenseeInputType, @Ctx() ctx: GraphQLContext): Promise<LicenseeType> {
    return licenseeType(await this.licenseeService.create(requirePrincipal(ctx).accountId, licenseeBody(input, false)));
  }

  @Mutation(() => LicenseeType)
  async updateLicensee(@Arg('id', () => ID) id: string, @Arg('input', () => LicenseeInputType) input: LicenseeInputType, @Ctx() ctx: GraphQLContext): Promise<LicenseeType> {
    return licenseeType(await this.licenseeService.update(requirePrincipal(ctx).accountId, id, licenseeBody(input, true)));
  }

  @Mutation(() => Boolean)
  async deleteLicensee(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await this.licenseeService.remove(requirePrincipal(ctx).accountId, id);
    return true;
  }
}
