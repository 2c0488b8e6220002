import {
  Ctx, eventSubscription, Field, FieldResolver, Float, ID, inject, injectable, ObjectType, requirePrincipal, Resolver, Root, Subscription, type EventPayloads, type GraphQLContext, type LiveEvent,
} from '@filigrane/plugin-api';
import { EvidencePackService } from './evidence.service.js';
import { EvidencePackType, packType } from './evidence.resolver.js';

@ObjectType('EvidenceCapturedEvent', { description: '`evidence.captured`: an evidence pack was built (complete) or could not be (failed), once its transaction committed' })
export class EvidenceCapturedEvent {
  @Field(() => ID, { description: 'The event (the same on a redelivery)' }) eventId!: string;
  @Field(() => Date) occurredAt!: Date;
  @Field(() => ID) packId!: string;
  @Field(() => String, { description: 'complete or failed' }) status!: string;
  @Field(() => String, { nullable: true, description: 'SHA-256 (hex) of the WACZ file (complete packs)' }) sha256!: string | null;
  @Field(() => Float, { nullable: true, description: 'Bytes of the WACZ file (complete packs)' }) size!: number | null;
  @Field(() => [ID]) matchIds!: string[];
  @Field(() => String, { description: 'REST URL of the pack' }) url!: string;
  @Field(() => String, { nullable: true, description: 'Why it failed' }) error!: string | null;
}

/** `evidenceCaptured`: the account's packs as they are built, from the outbox like every subscription. */
@injectable()
@Resolver(() => EvidenceCapturedEvent)
export class EvidenceEventsResolver {
  constructor(@inject(EvidencePackService) private readonly packs: EvidencePackService) {}

  @Subscription(() => EvidenceCapturedEvent, { description: 'Evidence packs of the account as they are built or fail (evidence.captured).', subscribe: eventSubscription(['evidence.captured']) })
  evidenceCaptured(@Root() event: LiveEvent): EvidenceCapturedEvent {
    const d = event.data as unknown as EventPayloads['evidence.captured'];
    return {
      eventId: event.id, occurredAt: event.occurredAt, packId: String(d.id), status: d.status, sha256: d.sha256, size: d.size,
      matchIds: d.match_ids.map(String), url: d.url, error: d.error,
    };
  }

  @FieldResolver(() => EvidencePackType, { nullable: true, description: 'The pack as it is now (null once deleted with its account)' })
  async pack(@Root() event: EvidenceCapturedEvent, @Ctx() ctx: GraphQLContext): Promise<EvidencePackType | null> {
    const row = await this.packs.row(requirePrincipal(ctx).accountId, event.packId);
    return row && packType(row, ctx.baseUrl);
  }
}
