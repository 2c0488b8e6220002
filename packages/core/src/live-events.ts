import type { DomainEvent } from './events.js';

/** An event as subscriptions see it: from the outbox, after its transaction committed. */
export interface LiveEvent extends DomainEvent {
  id: string;
  occurredAt: Date;
}

/**
 * Committed events of the outbox as they arrive, for GraphQL subscriptions (bound by the gateway
 * under LIVE_EVENTS). A stream sees one account's events only; it ends when `signal` aborts or the
 * consumer returns.
 */
export interface LiveEvents {
  stream(accountId: number, accept: (event: LiveEvent) => boolean, signal?: AbortSignal): AsyncIterableIterator<LiveEvent>;
  /** Resolves once streams see every event committed from now on (the first read of the outbox). */
  ready(): Promise<void>;
}

export const LIVE_EVENTS = Symbol.for('filigrane.LiveEvents') as symbol & { __type?: LiveEvents };
