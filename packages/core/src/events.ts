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
  /** Set on events delivered from the outbox: the same on every redelivery (listeners deduplicate on it). */
  id?: string;
  type: EventType;
  accountId: number;
  data: T;
  occurredAt?: Date;
}

export type EventListener = (event: DomainEvent) => Promise<void> | void;

/** Declared by the platform itself (the gateway), so any plugin may contribute a listener. */
export const EVENT_LISTENERS = createExtensionPoint<EventListener>('core.event-listeners');
/**
 * Event types a plugin publishes for webhook endpoints to subscribe to, besides the built-in ones:
 * `contribute(WEBHOOK_EVENT_TYPES, () => ['my-plugin.done'])`. Declared by the platform (like
 * EVENT_LISTENERS), so a plugin contributes whether or not the webhooks plugin is loaded.
 */
export const WEBHOOK_EVENT_TYPES = createExtensionPoint<readonly string[]>('webhooks.event-types');

/** Runs SQL in the caller's transaction (a TypeORM EntityManager or QueryRunner fits). */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

export interface EventPublisher {
  /** Hands the event to every listener now; a failing listener is logged, never thrown to the producer. */
  publish(event: DomainEvent): Promise<void>;
  /**
   * Writes the event to the platform's outbox in the caller's transaction: it exists if and only if
   * the change it reports was committed. Jobs deliver it after the commit, at least once to every
   * listener (a failing listener is retried alone, with backoff), in order among events with the same
   * `key` (for example `match:<id>`: created before updated). Call `flush()` after the commit.
   */
  enqueue(event: DomainEvent, tx: SqlRunner, options?: { key?: string }): Promise<void>;
  /**
   * `enqueue` for several events in one statement, in this order (same guarantees for each): a bulk
   * change's event per match without a round trip per match.
   */
  enqueueAll(events: readonly { event: DomainEvent; key?: string }[], tx: SqlRunner): Promise<void>;
  /** Asks a worker to deliver what was enqueued; never waits for listeners. */
  flush(): Promise<void>;
}

/** The in-process bus (publish only): the gateway's outbox bus extends it with enqueue and delivery. */
export class EventBus implements Pick<EventPublisher, 'publish'> {
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

/** What `match.created` and `match.updated` carry (the v4 webhook body's `data`). */
export interface MatchEventData {
  id: string;
  kind: string;
  source: string;
  media_id: string | null;
  watermarked: boolean;
  page_url: string | null;
  image_url: string | null;
  host: string | null;
  session_id: number | null;
  credit: string | null;
  site: { domain: string; country: string | null } | null;
}

/**
 * The payload of each event type. A plugin that publishes its own events adds them by declaration
 * merging on the package it depends on: `declare module '@filigrane/plugin-api' { interface EventPayloads {
 * 'my-plugin.done': { id: string } } }` (a first-party plugin may name '@filigrane/core').
 */
export interface EventPayloads {
  'match.created': MatchEventData;
  'match.updated': MatchEventData;
  'crawl.batch.created': { session_id: number; batch_id: number; crawl_cycle: number; state: 'done' | 'failed'; url: string; images?: number; videos?: number; documents?: number; pages?: number };
  'press.issue.processed': Record<string, unknown> & { matches: number };
  'search.completed': Record<string, unknown> & { id: string | null; status: string };
  'watermarking.completed': { id: string; status: 'complete' | 'failed'; error: unknown };
}

export type TypedEvent<K extends keyof EventPayloads> = DomainEvent<EventPayloads[K]> & { type: K; occurredAt: Date };

/** A listener for one event type, with its payload typed: `contribute(EVENT_LISTENERS, () => onEvent('match.created', (e) => ...))`. */
export function onEvent<K extends keyof EventPayloads>(type: K, handler: (event: TypedEvent<K>) => Promise<void> | void): EventListener {
  return (event) => (event.type === type ? handler(event as unknown as TypedEvent<K>) : undefined);
}
