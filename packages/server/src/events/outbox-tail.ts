import type { DataSource } from 'typeorm';
import type { DomainEvent, LiveEvent, LiveEvents } from '@filigrane/core';

interface TailRow {
  id: string;
  account_id: number;
  type: string;
  data: Record<string, unknown>;
  occurred_at: Date;
}

interface Listener {
  accountId: number;
  accept: (event: LiveEvent) => boolean;
  push: (event: LiveEvent) => void;
}

/** How often the outbox is read while someone listens, and how long an id skipped over is waited for. */
const POLL_MS = 250;
const GAP_WAIT_MS = 10 * 60_000;
const MAX_GAPS = 10_000;
/** Events a slow subscriber may have waiting before the oldest are dropped. */
const QUEUE_LIMIT = 1000;

/**
 * Committed outbox events, read by every process that serves subscriptions: whoever enqueued them
 * (this process, a worker, another gateway), whatever delivers them. Only committed rows are ever
 * visible, so nothing reaches a subscriber before its transaction commits. Ids come from a sequence
 * at insert time, so a transaction that commits late leaves a hole below ids already read: such
 * holes are read again until their row appears or GAP_WAIT_MS passes (a rollback never fills one).
 * Polling rather than LISTEN/NOTIFY, which the embedded database's wire server cannot carry.
 */
export class OutboxTail implements LiveEvents {
  private readonly listeners = new Set<Listener>();
  private last: number | null = null;
  private readonly gaps = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private closed = false;
  private localIds = 0;

  constructor(
    private readonly db: () => DataSource,
    private readonly log: (message: string) => void,
    private readonly pollMs = POLL_MS,
  ) {}

  stream(accountId: number, accept: (event: LiveEvent) => boolean, signal?: AbortSignal): AsyncIterableIterator<LiveEvent> {
    const queue: LiveEvent[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    const listener: Listener = {
      accountId,
      accept,
      push: (event) => {
        if (queue.length >= QUEUE_LIMIT) queue.shift();
        queue.push(event);
        wake?.();
      },
    };
    const stop = () => {
      done = true;
      this.listeners.delete(listener);
      wake?.();
    };
    signal?.addEventListener('abort', stop, { once: true });
    this.listeners.add(listener);
    this.start();
    const iterator: AsyncIterableIterator<LiveEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (!done && queue.length === 0) await new Promise<void>((r) => (wake = r));
        wake = null;
        if (queue.length) return { value: queue.shift()!, done: false };
        return { value: undefined, done: true };
      },
      return: async () => {
        stop();
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }

  /** Waits for the first read (a subscriber then sees every event committed after it subscribed). */
  async ready(): Promise<void> {
    while (this.last === null && !this.closed) await (this.polling ?? new Promise((r) => setTimeout(r, 10)));
  }

  /** An event published in this process without the outbox (it reaches only this process's subscribers). */
  inject(event: DomainEvent): void {
    this.emitEvent({ ...event, id: `local-${++this.localIds}`, occurredAt: event.occurredAt ?? new Date() });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private start(): void {
    if (this.timer || this.polling || this.closed) return;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.polling = this.poll()
        .catch((err: unknown) => this.log(`live events: reading the outbox failed: ${(err as Error).message}`))
        .finally(() => {
          this.polling = null;
          // Nobody listens: stop reading, and start from the newest event when someone comes back.
          if (this.listeners.size === 0) this.last = null;
          else if (!this.closed) this.schedule(this.pollMs);
        });
    }, ms);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (this.last === null) {
      const [row]: { max: string | null }[] = await this.db().query('SELECT max(id)::text AS max FROM event_outbox');
      this.last = Number(row?.max ?? 0);
      this.gaps.clear();
      return;
    }
    const now = Date.now();
    for (const [id, until] of this.gaps) if (until < now) this.gaps.delete(id);
    const rows: TailRow[] = await this.db().query(
      'SELECT id, account_id, type, data, occurred_at FROM event_outbox WHERE id > $1 OR id = ANY($2::bigint[]) ORDER BY id LIMIT 1000',
      [this.last, [...this.gaps.keys()]],
    );
    for (const row of rows) {
      const id = Number(row.id);
      if (this.gaps.delete(id) || id <= this.last) {
        this.emit(row);
        continue;
      }
      for (let missing = this.last + 1; missing < id && this.gaps.size < MAX_GAPS; missing++) this.gaps.set(missing, now + GAP_WAIT_MS);
      this.last = id;
      this.emit(row);
    }
  }

  private emit(row: TailRow): void {
    this.emitEvent({ id: String(row.id), type: row.type, accountId: row.account_id, data: row.data, occurredAt: new Date(row.occurred_at) });
  }

  private emitEvent(event: LiveEvent): void {
    for (const l of this.listeners) {
      if (l.accountId !== event.accountId) continue;
      try {
        if (l.accept(event)) l.push(event);
      } catch (err) {
        this.log(`live events: a subscription's filter failed: ${(err as Error).message}`);
      }
    }
  }
}
