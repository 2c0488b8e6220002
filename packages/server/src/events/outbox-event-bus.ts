import type { DataSource } from 'typeorm';
import { EVENT_LISTENERS, EventBus, returnedRows, type DomainEvent, type EventPublisher, type ExtensionRegistry, type JobQueue, type SqlRunner } from '@filigrane/core';

export const EVENTS_QUEUE = 'core.events';
/** Events claimed per round trip, and how long a claim holds before another worker may take them. */
const BATCH = 50;
const LEASE_SECONDS = 120;
/** A listener still failing after this many attempts (about a day of backoff) leaves the event dead-lettered. */
const MAX_ATTEMPTS = 30;
const MAX_BACKOFF_SECONDS = 3600;

interface OutboxRow {
  id: string;
  account_id: number;
  type: string;
  data: Record<string, unknown>;
  occurred_at: Date;
  delivered_to: string[];
  attempts: number;
}

/**
 * The event bus with an outbox: `publish` hands an event to the listeners at once (events whose
 * loss is harmless), `enqueue` writes it in the producer's transaction and jobs deliver it after the
 * commit: at least once to each listener (each is tracked apart, so one failing listener is retried
 * alone), in id order among the events of one ordering key, never in the producer's time.
 */
export class OutboxEventBus extends EventBus implements EventPublisher {
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly extensions: ExtensionRegistry,
    private readonly jobs: JobQueue,
    private readonly db: () => DataSource,
    private readonly logLine: (message: string) => void,
    private readonly clockNow: () => Date,
  ) {
    super(() => extensions.get(EVENT_LISTENERS), logLine, clockNow);
  }

  async enqueue(event: DomainEvent, tx: SqlRunner, options: { key?: string } = {}): Promise<void> {
    await tx.query(
      'INSERT INTO event_outbox (account_id, type, ordering_key, data, occurred_at) VALUES ($1, $2, $3, $4, $5)',
      [event.accountId, event.type, options.key ?? null, event.data, event.occurredAt ?? this.clockNow()],
    );
  }

  async enqueueAll(events: readonly { event: DomainEvent; key?: string }[], tx: SqlRunner): Promise<void> {
    if (events.length === 0) return;
    const now = this.clockNow();
    // Ordered by position, so ids (the delivery order within a key) follow the caller's order.
    await tx.query(
      `INSERT INTO event_outbox (account_id, type, ordering_key, data, occurred_at)
       SELECT e.account_id, e.type, e.ordering_key, e.data, e.occurred_at
       FROM unnest($1::int[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[]) WITH ORDINALITY AS e(account_id, type, ordering_key, data, occurred_at, n)
       ORDER BY e.n`,
      [
        events.map((e) => e.event.accountId),
        events.map((e) => e.event.type),
        events.map((e) => e.key ?? null),
        events.map((e) => JSON.stringify(e.event.data)),
        events.map((e) => (e.event.occurredAt ?? now).toISOString()),
      ],
    );
  }

  /** One delivery job for the events enqueued in this tick (a crawl records many matches at once). */
  flush(): Promise<void> {
    // A closing process sends no more jobs (that would start the queue again); what it enqueued
    // stays in the outbox for the schedule or the next process.
    if (this.closed) return Promise.resolve();
    this.flushing ??= Promise.resolve().then(async () => {
      this.flushing = null;
      if (this.closed) return;
      await this.jobs.send(EVENTS_QUEUE, {}, { singletonKey: 'deliver' });
    });
    return this.flushing;
  }

  /** Listeners with stable ids: the contributing plugin and the rank among its listeners. */
  private identifiedListeners(): { id: string; listener: (e: DomainEvent) => Promise<void> | void }[] {
    const rank = new Map<string, number>();
    return this.extensions.entries(EVENT_LISTENERS).map(({ pluginId, value }) => {
      const n = rank.get(pluginId) ?? 0;
      rank.set(pluginId, n + 1);
      return { id: n ? `${pluginId}#${n}` : pluginId, listener: value };
    });
  }

  close(): void {
    this.closed = true;
  }

  /** The job: delivers pending events until none is due. Safe to run in any number of workers at once. */
  async deliverPending(): Promise<number> {
    let delivered = 0;
    for (;;) {
      const rows = await this.claim();
      if (rows.length === 0) return delivered;
      for (const row of rows) delivered += (await this.deliver(row)) ? 1 : 0;
    }
  }

  /**
   * Due events, oldest first, that no worker holds and that no earlier pending event of the same
   * ordering key precedes (a match's `updated` waits for its `created`).
   */
  private async claim(): Promise<OutboxRow[]> {
    const rows = returnedRows<OutboxRow>(await this.db().query(
      `UPDATE event_outbox SET locked_until = now() + make_interval(secs => $1)
       WHERE id IN (
         SELECT o.id FROM event_outbox o
         WHERE o.delivered_at IS NULL AND o.next_attempt_at <= now() AND (o.locked_until IS NULL OR o.locked_until < now())
           AND (o.ordering_key IS NULL OR NOT EXISTS (
             SELECT 1 FROM event_outbox p WHERE p.delivered_at IS NULL AND p.ordering_key = o.ordering_key AND p.id < o.id))
         ORDER BY o.id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, account_id, type, data, occurred_at, delivered_to, attempts`,
      [LEASE_SECONDS, BATCH],
    ));
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  private async deliver(row: OutboxRow): Promise<boolean> {
    const event: DomainEvent = { id: String(row.id), type: row.type, accountId: row.account_id, data: row.data, occurredAt: new Date(row.occurred_at) };
    const done = new Set(row.delivered_to);
    const errors: string[] = [];
    for (const { id, listener } of this.identifiedListeners()) {
      if (done.has(id)) continue;
      try {
        await listener(event);
        done.add(id);
      } catch (err) {
        errors.push(`${id}: ${(err as Error).message}`);
      }
    }
    if (errors.length === 0) {
      await this.db().query('UPDATE event_outbox SET delivered_to = $2, delivered_at = now(), locked_until = NULL, last_error = NULL WHERE id = $1', [row.id, [...done]]);
      return true;
    }
    const attempts = row.attempts + 1;
    const dead = attempts >= MAX_ATTEMPTS;
    const backoff = Math.min(MAX_BACKOFF_SECONDS, 2 ** (attempts - 1));
    this.logLine(`event ${row.type} #${row.id}: listener failed (attempt ${attempts}${dead ? ', given up' : `, retry in ${backoff} s`}): ${errors.join('; ')}`.slice(0, 1000));
    await this.db().query(
      `UPDATE event_outbox SET delivered_to = $2, attempts = $3, last_error = $4, locked_until = NULL, dead = $5,
         delivered_at = CASE WHEN $5 THEN now() END, next_attempt_at = now() + make_interval(secs => $6)
       WHERE id = $1`,
      [row.id, [...done], attempts, errors.join('; ').slice(0, 2000), dead, backoff],
    );
    return false;
  }

  /** A delivery job at the next retry of an event left pending by a failing listener (the schedule is a backstop). */
  async scheduleRetry(): Promise<void> {
    const [next]: { wait: number | null }[] = await this.db().query(
      `SELECT EXTRACT(EPOCH FROM min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at))) - now())::float8 AS wait
       FROM event_outbox WHERE delivered_at IS NULL`,
    );
    if (next?.wait === null || next?.wait === undefined) return;
    await this.jobs.send(EVENTS_QUEUE, {}, { startAfterSeconds: Math.max(1, Math.ceil(next.wait)) });
  }

  /** Events due for delivery now (not those waiting for a retry's backoff): tests wait for none to be left. */
  async dueCount(): Promise<number> {
    const [row]: { n: number }[] = await this.db().query('SELECT count(*)::int AS n FROM event_outbox WHERE delivered_at IS NULL AND next_attempt_at <= now()');
    return row?.n ?? 0;
  }

  /** Part of an account's deletion: its events, delivered or not, go (listeners would find nothing left to act on). */
  async forgetAccount(accountId: number): Promise<void> {
    await this.db().query('DELETE FROM event_outbox WHERE account_id = $1', [accountId]);
  }

  /** Delivered events are kept a week (for inspection), dead-lettered ones too. */
  async purge(): Promise<void> {
    await this.db().query(`DELETE FROM event_outbox WHERE delivered_at < now() - interval '7 days'`);
  }
}
