import { createExtensionPoint } from './extension-point.js';

/**
 * Domain events: what happened in an account (a match found, a crawl batch written, ...).
 * Producers publish through `TOKENS.Events` without knowing who listens; webhooks, digests and
 * aggregations contribute listeners to `EVENT_LISTENERS`.
 */
export type EventType =
  | 'match.created'
  | 'match.updated'
  | 'crawl.batch.created'
  | 'press.issue.processed'
  | 'search.completed'
  | 'watermarking.completed'
  | (string & {});

export interface DomainEvent<T extends object = Record<string, unknown>> {
  type: EventType;
  accountId: number;
  data: T;
  occurredAt?: Date;
}

export type EventListener = (event: DomainEvent) => Promise<void> | void;

/** Declared by the platform itself (the gateway), so any plugin may contribute a listener. */
export const EVENT_LISTENERS = createExtensionPoint<EventListener>('core.event-listeners');

export interface EventPublisher {
  /** Hands the event to every listener; a failing listener is logged, never thrown to the producer. */
  publish(event: DomainEvent): Promise<void>;
}

export class EventBus implements EventPublisher {
  constructor(
    private readonly listeners: () => EventListener[],
    private readonly log: (message: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async publish(event: DomainEvent): Promise<void> {
    const stamped = { ...event, occurredAt: event.occurredAt ?? this.now() };
    for (const listener of this.listeners()) {
      try {
        await listener(stamped);
      } catch (err) {
        this.log(`event listener failed for ${event.type}: ${(err as Error).message}`);
      }
    }
  }
}
