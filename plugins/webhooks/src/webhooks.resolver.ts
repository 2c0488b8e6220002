import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import type { WebhookDelivery, WebhookEndpoint } from './webhook.entities.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookEndpointService } from './webhook-endpoint.service.js';

@ObjectType('WebhookEndpoint')
export class WebhookEndpointType {
  @Field(() => Int) id!: number;
  @Field(() => String) url!: string;
  @Field(() => [String]) events!: string[];
  @Field(() => String) description!: string;
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => String, { nullable: true }) disabledReason!: string | null;
  @Field(() => Date, { nullable: true }) failingSince!: Date | null;
  @Field(() => Date) created!: Date;
}

@ObjectType('CreatedWebhookEndpoint')
export class CreatedWebhookEndpointType extends WebhookEndpointType {
  @Field(() => String, { description: 'Signing secret (whsec_...), shown only in this response; stored encrypted.' })
  secret!: string;
}

@ObjectType('WebhookDelivery')
export class WebhookDeliveryType {
  @Field(() => String, { description: 'The webhook-id header' }) id!: string;
  @Field(() => Int) endpointId!: number;
  @Field(() => String) eventType!: string;
  @Field(() => String) status!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => Int, { nullable: true }) lastStatusCode!: number | null;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => Date, { nullable: true }) deliveredAt!: Date | null;
  @Field(() => Date, { nullable: true }) nextAttemptAt!: Date | null;
  @Field(() => String, { description: 'The JSON body that was signed and sent' }) payload!: string;
  @Field(() => Date) created!: Date;
}

const endpointType = (e: WebhookEndpoint): WebhookEndpointType => ({
  id: e.id, url: e.url, events: e.events, description: e.description, enabled: e.enabled, disabledReason: e.disabledReason, failingSince: e.failingSince, created: e.created,
});
const deliveryType = (d: WebhookDelivery): WebhookDeliveryType => {
  const last = d.attemptLog[d.attemptLog.length - 1];
  return {
    id: d.id, endpointId: d.endpointId, eventType: d.eventType, status: d.status, attempts: d.attempts, lastStatusCode: last?.status_code ?? null,
    lastError: last?.error ?? null, deliveredAt: d.deliveredAt, nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null, payload: d.payload, created: d.created,
  };
};
const idOf = (id: string) => (/^\d{1,9}$/.test(id) ? Number(id) : NaN);

@injectable()
@Resolver()
export class WebhooksResolver {
  constructor(
    @inject(WebhookEndpointService) private readonly endpoints: WebhookEndpointService,
    @inject(WebhookDeliveryService) private readonly deliveries: WebhookDeliveryService,
  ) {}

  @Query(() => [WebhookEndpointType], { description: 'The account\'s webhook endpoints (at most 1000).' })
  async webhookEndpoints(@Ctx() ctx: GraphQLContext): Promise<WebhookEndpointType[]> {
    const [rows] = await this.endpoints.list(requirePrincipal(ctx).accountId, 0, 1000);
    return rows.map(endpointType);
  }

  @Query(() => [WebhookDeliveryType], { description: 'An endpoint\'s delivery log, newest first.' })
  async webhookDeliveries(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('status', () => String, { nullable: true }) status: string | undefined,
    @Arg('first', () => Int, { defaultValue: 100 }) first: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookDeliveryType[]> {
    const endpoint = await this.endpoints.get(requirePrincipal(ctx).accountId, idOf(endpointId));
    const wanted = status === 'pending' || status === 'succeeded' || status === 'failed' ? status : undefined;
    const [rows] = await this.deliveries.listDeliveries(endpoint.accountId, endpoint.id, wanted, 0, Math.min(Math.max(first, 1), 100));
    return rows.map(deliveryType);
  }

  @Mutation(() => CreatedWebhookEndpointType)
  async createWebhookEndpoint(
    @Arg('url', () => String) url: string,
    @Arg('events', () => [String]) events: string[],
    @Arg('description', () => String, { nullable: true }) description: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CreatedWebhookEndpointType> {
    const { endpoint, secret } = await this.endpoints.create(requirePrincipal(ctx).accountId, { url, events, ...(description !== undefined ? { description } : {}) });
    return { ...endpointType(endpoint), secret };
  }

  @Mutation(() => WebhookEndpointType, {
    nullable: true,
    description: 'Changes url, events or description (omitted arguments keep their value); `enabled: true` re-enables a disabled endpoint (PATCH /api/v4/account/webhooks/<id>/).',
  })
  async updateWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('url', () => String, { nullable: true }) url?: string | null,
    @Arg('events', () => [String], { nullable: true }) events?: string[] | null,
    @Arg('description', () => String, { nullable: true }) description?: string | null,
    @Arg('enabled', () => Boolean, { nullable: true }) enabled?: boolean | null,
  ): Promise<WebhookEndpointType> {
    // The PATCH body REST validates: an argument given as null is left out like an omitted one.
    const body = Object.fromEntries(Object.entries({ url, events, description, enabled }).filter(([, v]) => v !== undefined && v !== null));
    return endpointType(await this.endpoints.update(requirePrincipal(ctx).accountId, idOf(id), body));
  }

  @Mutation(() => Boolean)
  async deleteWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await this.endpoints.remove(requirePrincipal(ctx).accountId, idOf(id));
    return true;
  }

  @Mutation(() => WebhookDeliveryType, { description: 'Sends a signed webhook.test event now; returns the delivery.' })
  async testWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<WebhookDeliveryType> {
    return deliveryType(await this.deliveries.ping(requirePrincipal(ctx).accountId, idOf(id)));
  }
}
