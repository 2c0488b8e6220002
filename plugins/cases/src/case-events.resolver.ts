import {
  ApiError, Arg, Ctx, eventSubscription, Field, FieldResolver, ID, inject, injectable, ObjectType, registerEnumType, requirePrincipal, Resolver, Root, Subscription,
  type GraphQLContext, type LiveEvent,
} from '@filigrane/plugin-api';
import type { Actor } from './case.service.js';
import { CASE_EVENTS, type CaseEventData } from './cases.events.js';
import { CaseActorType, CasesResolver, CaseType } from './cases.resolver.js';

export const CaseEventKind = { OPENED: 'case.opened', UPDATED: 'case.updated' } as const;
registerEnumType(CaseEventKind, { name: 'CaseEventKind', description: 'A case opened, or changed (transition, matches, notice, evidence, title)' });

@ObjectType('CaseChange', { description: 'What the change was, as in the case\'s history' })
export class CaseChangeType {
  @Field(() => String, { description: 'opened, transition, notice_created, notice_sent, matches_added, matches_removed, evidence_added, renamed' }) action!: string;
  @Field(() => String, { nullable: true }) fromState!: string | null;
  @Field(() => String, { nullable: true }) toState!: string | null;
  @Field(() => CaseActorType) actor!: CaseActorType;
  @Field(() => String, { nullable: true }) note!: string | null;
  @Field(() => [ID], { description: 'The matches it added or removed (opened: all of them)' }) matchIds!: string[];
  @Field(() => ID, { nullable: true }) noticeId!: string | null;
  @Field(() => ID, { nullable: true }) packId!: string | null;
}

@ObjectType('CaseEvent', { description: '`case.opened` or `case.updated`, once its transaction committed: the case as the change left it' })
export class CaseEvent {
  @Field(() => ID, { description: 'The event (the same on a redelivery)' }) eventId!: string;
  @Field(() => CaseEventKind) kind!: (typeof CaseEventKind)[keyof typeof CaseEventKind];
  @Field(() => Date) occurredAt!: Date;
  @Field(() => ID) caseId!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) site!: string | null;
  @Field(() => String, { description: 'open, notice_sent, resolved or closed' }) state!: string;
  @Field(() => String, { nullable: true, description: 'removed, licensed_afterwards or paid (resolved cases)' }) resolution!: string | null;
  @Field(() => [ID]) matchIds!: string[];
  @Field(() => CaseChangeType) change!: CaseChangeType;
}

const ids = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** `caseEvents`: the account's cases as they open and change, from the outbox like every subscription. */
@injectable()
@Resolver(() => CaseEvent)
export class CaseEventsResolver {
  constructor(@inject(CasesResolver) private readonly cases: CasesResolver) {}

  @Subscription(() => CaseEvent, {
    description: 'Cases of the account as they open and change (case.opened, case.updated); `kinds` and `caseId` narrow them.',
    subscribe: eventSubscription<{ caseId?: string | null }>(CASE_EVENTS, (e, args) => !args.caseId || String((e.data as { id?: unknown }).id) === args.caseId),
  })
  caseEvents(
    @Root() event: LiveEvent,
    @Arg('kinds', () => [CaseEventKind], { nullable: true }) _kinds?: string[],
    @Arg('caseId', () => ID, { nullable: true }) _caseId?: string,
  ): CaseEvent {
    const d = event.data as unknown as CaseEventData;
    const c = d.change;
    const actor = c.actor as Actor;
    return {
      eventId: event.id,
      kind: event.type as CaseEvent['kind'],
      occurredAt: event.occurredAt,
      caseId: String(d.id),
      title: d.title,
      site: d.site,
      state: d.state,
      resolution: d.resolution,
      matchIds: d.match_ids.map(String),
      change: {
        action: c.action, fromState: text(c.from_state), toState: text(c.to_state), note: text(c.note),
        actor: { type: actor.type, accountId: actor.account_id, applicationId: actor.application_id },
        matchIds: ids(c.match_ids), noticeId: text(c.notice_id), packId: text(c.pack_id),
      },
    };
  }

  @FieldResolver(() => CaseType, { name: 'case', nullable: true, description: 'The case as it is now, with its matches, evidence, notices and history (null once deleted)' })
  async caseNow(@Root() event: CaseEvent, @Ctx() ctx: GraphQLContext): Promise<CaseType | null> {
    try {
      return await this.cases.caseById(requirePrincipal(ctx).accountId, event.caseId, ctx.baseUrl);
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return null;
      throw err;
    }
  }
}
