export { webhooksPlugin } from './webhooks.plugin.js';
export { WebhookEndpointService } from './webhook-endpoint.service.js';
export { WebhookDeliveryService, DELIVER_QUEUE } from './webhook-delivery.service.js';
export { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES, PING_EVENT, type WebhookEventType } from './webhook-events.js';
export { WEBHOOKS_SETTINGS } from './webhooks.settings.js';
