/** The domain events an endpoint may subscribe to (core `EventType`s that leave the service). */
export const WEBHOOK_EVENTS = [
  'match.created',
  'match.updated',
  'crawl.batch.created',
  'press.issue.processed',
  'search.completed',
  'watermarking.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** The event type of a test ping; never a subscription. */
export const PING_EVENT = 'webhook.test';

export const isWebhookEvent = (type: string): type is WebhookEventType => (WEBHOOK_EVENTS as readonly string[]).includes(type);
