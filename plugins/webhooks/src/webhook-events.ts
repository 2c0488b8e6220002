import { WEBHOOK_EVENT_TYPES } from '@filigrane/core';

/** The platform's domain events an endpoint may subscribe to (core `EventType`s that leave the service). */
export const WEBHOOK_EVENTS = [
  'match.created',
  'match.updated',
  'crawl.batch.created',
  'press.issue.processed',
  'search.completed',
  'watermarking.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/**
 * Event types other plugins publish to webhooks (`review` contributes `match.reviewed`):
 * `contribute(WEBHOOK_EVENT_TYPES, () => ['my-plugin.done'])`. Subscriptions accept them and the
 * deliveries carry them like the built-in ones. The point is the platform's (core, in the plugin
 * API), so a plugin outside the repository contributes without depending on this one.
 */
export { WEBHOOK_EVENT_TYPES };

/** The event type of a test ping; never a subscription. */
export const PING_EVENT = 'webhook.test';

/** The built-in event types followed by the contributed ones, without duplicates. */
export function webhookEventTypes(contributed: readonly (readonly string[])[]): string[] {
  return [...new Set([...WEBHOOK_EVENTS, ...contributed.flat()])].filter((t) => t !== PING_EVENT);
}
