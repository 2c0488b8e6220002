import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, contribute, CORE_API_VERSION, definePlugin, EVENT_LISTENERS } from '@filigrane/core';
import { WebhookDelivery, WebhookEndpoint } from './webhook.entities.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookEndpointService } from './webhook-endpoint.service.js';
import { webhookJobs } from './webhooks.jobs.js';
import { WebhooksInit1764000009000 } from './webhooks.migration.js';
import { WebhooksResolver } from './webhooks.resolver.js';
import { webhookRoutes } from './webhooks.routes.js';
import { WEBHOOKS_SETTINGS } from './webhooks.settings.js';

/** Signed webhooks (Standard Webhooks): endpoints per account, deliveries as pg-boss jobs with retries and a log. */
export const webhooksPlugin = definePlugin({
  id: 'webhooks',
  coreApi: CORE_API_VERSION,
  requires: ['auth'],
  settings: WEBHOOKS_SETTINGS,
  entities: [WebhookEndpoint, WebhookDelivery],
  migrations: [WebhooksInit1764000009000],
  bindings: new ContainerModule(({ bind }) => {
    bind(WebhookEndpointService).toSelf().inSingletonScope();
    bind(WebhookDeliveryService).toSelf().inSingletonScope();
  }),
  contributions: [
    contribute(EVENT_LISTENERS, (c) => (event) => c.get(WebhookDeliveryService).enqueue(event).then(() => undefined)),
    contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(WebhookEndpointService).forgetAccount(accountId)),
  ],
  routes: webhookRoutes,
  resolvers: [WebhooksResolver],
  jobs: webhookJobs,
});
