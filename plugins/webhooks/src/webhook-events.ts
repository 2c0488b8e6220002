import { createExtensionPoint } from '@filigrane/core';

/** The built-in domain events an endpoint may subscribe to (core `EventType`s that leave the service). */
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

/**
 * More event types endpoints may subscribe to, contributed by other plugins for their own events
 * (`contribute(WEBHOOK_EVENT_TYPES, () => 'evidence.captured')`; such a plugin requires 'webhooks').
 */
export const WEBHOOK_EVENT_TYPES = createExtensionPoint<string>('webhooks.event-types');
