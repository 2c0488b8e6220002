import type { DomainEvent } from './events.js';
import { requirePrincipal, type GraphQLContext } from './graphql-context.js';

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

/** The arguments a subscription's filter sees; `kinds` (event types, when given) narrows the types. */
export type LiveEventArgs = Record<string, unknown> & { kinds?: readonly string[] | null };

/**
 * The `subscribe` of a GraphQL subscription fed by the outbox: the caller's events of these types
 * (`kinds` among them when the field takes it, then `accept`), after their transaction committed;
 * another account's are never seen. Each event runs with fresh per-request loaders
 * (requestLoader), so a match or a case read for one event is read again for the next.
 *
 * ```ts
 * @Subscription(() => FeedEvent, { subscribe: eventSubscription(['feed.updated']) })
 * feedUpdated(@Root() event: LiveEvent): FeedEvent { ... }
 * ```
 */
export function eventSubscription<A extends LiveEventArgs = LiveEventArgs>(types: readonly string[], accept: (event: LiveEvent, args: A) => boolean = () => true) {
  return async ({ args, context }: { args: A; context: GraphQLContext }): Promise<AsyncIterable<LiveEvent>> => {
    const principal = requirePrincipal(context);
    const wanted = new Set<string>(args.kinds?.length ? args.kinds.filter((k) => types.includes(k)) : types);
    const live = context.container.get<LiveEvents>(LIVE_EVENTS);
    const stream = live.stream(principal.accountId, (e) => wanted.has(e.type) && accept(e, args));
    await live.ready();
    // graphql-js runs one event at a time per subscription: the loaders of the last one are done with.
    const perEvent: AsyncIterableIterator<LiveEvent> = {
      [Symbol.asyncIterator]: () => perEvent,
      next: async () => {
        const next = await stream.next();
        context.loaders?.clear();
        return next;
      },
      return: async () => stream.return?.() ?? { value: undefined, done: true },
    };
    return perEvent;
  };
}
