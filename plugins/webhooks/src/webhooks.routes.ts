import { badRequest, created, listPage, noContent, ok, pageSchema, queryString, type RouteContext, type RouteSpec } from '@filigrane/core';
import type { DeliveryStatus } from './webhook.entities.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookEndpointService } from './webhook-endpoint.service.js';
import { CREATED_ENDPOINT_SCHEMA, DELIVERY_SCHEMA, deliveryView, ENDPOINT_INPUT_SCHEMA, ENDPOINT_SCHEMA, endpointView } from './webhook-view.js';

const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const tags = ['webhooks'];
const idParam = (ctx: RouteContext) => (/^\d{1,9}$/.test(ctx.params.id) ? Number(ctx.params.id) : NaN);
const endpoints = (ctx: RouteContext) => ctx.container.get(WebhookEndpointService);
const deliveries = (ctx: RouteContext) => ctx.container.get(WebhookDeliveryService);

export const webhookRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'GET',
    path: '/account/webhooks/',
    tags,
    summary: 'List the account\'s webhook endpoints',
    responses: { 200: { schema: pageSchema(ENDPOINT_SCHEMA) } },
    handler: async (ctx) => ok(await listPage(ctx, (offset, limit) => endpoints(ctx).list(ctx.principal!.accountId, offset, limit), (e) => endpointView(e, ctx.baseUrl))),
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/account/webhooks/',
    tags,
    summary: 'Register an endpoint (url, events); the signing secret is in this response only',
    requestSchema: { ...ENDPOINT_INPUT_SCHEMA, required: ['url', 'events'] },
    responses: { 201: { schema: CREATED_ENDPOINT_SCHEMA } },
    async handler(ctx) {
      const { endpoint, secret } = await endpoints(ctx).create(ctx.principal!.accountId, ctx.body);
      return created({ ...endpointView(endpoint, ctx.baseUrl), secret }, `${ctx.baseUrl}/api/v4/account/webhooks/${endpoint.id}/`);
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/account/webhooks/:id/',
    tags,
    summary: 'One endpoint',
    responses: { 200: { schema: ENDPOINT_SCHEMA } },
    handler: async (ctx) => ok(endpointView(await endpoints(ctx).get(ctx.principal!.accountId, idParam(ctx)), ctx.baseUrl)),
  },
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/account/webhooks/:id/',
    tags,
    summary: 'Change url, events or description; `enabled: true` re-enables a disabled endpoint',
    requestSchema: ENDPOINT_INPUT_SCHEMA,
    responses: { 200: { schema: ENDPOINT_SCHEMA } },
    handler: async (ctx) => ok(endpointView(await endpoints(ctx).update(ctx.principal!.accountId, idParam(ctx), ctx.body), ctx.baseUrl)),
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/account/webhooks/:id/',
    tags,
    summary: 'Delete an endpoint and its delivery log',
    responses: { 204: { description: 'Deleted' } },
    async handler(ctx) {
      await endpoints(ctx).remove(ctx.principal!.accountId, idParam(ctx));
      return noContent();
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/account/webhooks/:id/test/',
    accepts: ['none', 'json'],
    tags,
    summary: 'Send a signed `webhook.test` event now (one attempt, no retry); returns the delivery',
    responses: { 200: { schema: DELIVERY_SCHEMA } },
    handler: async (ctx) => ok(deliveryView(await deliveries(ctx).ping(ctx.principal!.accountId, idParam(ctx)))),
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/account/webhooks/:id/deliveries/',
    tags,
    summary: 'The endpoint\'s delivery log, newest first',
    query: { status: { type: 'string', enum: STATUSES, description: 'Only deliveries in this state' } },
    responses: { 200: { schema: pageSchema(DELIVERY_SCHEMA) } },
    async handler(ctx) {
      const endpoint = await endpoints(ctx).get(ctx.principal!.accountId, idParam(ctx));
      const status = queryString(ctx.query, 'status');
      if (status !== undefined && !STATUSES.includes(status as DeliveryStatus)) throw badRequest('invalid_status', `status is one of ${STATUSES.join(', ')}.`);
      return ok(await listPage(ctx, (offset, limit) => deliveries(ctx).listDeliveries(endpoint.accountId, endpoint.id, status as DeliveryStatus | undefined, offset, limit), deliveryView));
    },
  },
];
