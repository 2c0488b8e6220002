import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { FetchError, safeFetch } from '@filigrane/net';
import { CORE_SETTINGS, TOKENS, type Clock, type CoreSettings, type DomainEvent, type JobQueue } from '@filigrane/core';
import { WebhookDelivery, WebhookEndpoint, type DeliveryAttempt, type DeliveryStatus } from './webhook.entities.js';
import { WebhookEndpointService } from './webhook-endpoint.service.js';
import { PING_EVENT } from './webhook-events.js';
import { newMessageId, signedHeaders } from './webhook-signer.js';
import { retryDelays, WEBHOOKS_SETTINGS, type WebhooksSettings } from './webhooks.settings.js';

export const DELIVER_QUEUE = 'webhooks.deliver';
export const SWEEP_QUEUE = 'webhooks.sweep';
const LOG_LENGTH = 20;
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface DeliverJob {
  deliveryId: string;
}

/**
 * Turns domain events into deliveries (one row per subscribed endpoint, then a pg-boss job), and
 * runs one attempt per job: sign, POST through the SSRF-safe fetcher, record, schedule the next
 * retry or give up; an endpoint that has failed for `WEBHOOKS_DISABLE_AFTER_HOURS` is disabled.
 * The row is the truth: a lost job is re-sent by the sweeper, a duplicate job finds the row claimed.
 */
@injectable()
export class WebhookDeliveryService {
  private readonly delays: number[];

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
    @inject(WEBHOOKS_SETTINGS.token) private readonly settings: WebhooksSettings,
    @inject(WebhookEndpointService) private readonly endpoints: WebhookEndpointService,
  ) {
    this.delays = retryDelays(settings);
  }

  /** The EVENT_LISTENERS contribution: one delivery per enabled endpoint of the account subscribed to the type. */
  async enqueue(event: DomainEvent): Promise<number> {
    if (!this.endpoints.eventTypes().includes(event.type)) return 0;
    const endpoints: { id: number }[] = await this.db.query(
      'SELECT id FROM webhook_endpoints WHERE account_id = $1 AND enabled AND $2 = ANY(events) ORDER BY id',
      [event.accountId, event.type],
    );
    if (endpoints.length === 0) return 0;
    const at = event.occurredAt ?? this.clock.now();
    const body = JSON.stringify({ type: event.type, timestamp: at.toISOString(), data: event.data });
    // An event from the outbox may come again (at-least-once): its message ids are derived from its
    // id, so a redelivery finds its deliveries already there and adds none.
    const ids = endpoints.map((e) => (event.id ? `msg_evt${event.id}_${e.id}` : newMessageId()));
    const inserted: { id: string }[] = await this.db.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_type, payload, status, next_attempt_at)
       SELECT id, endpoint_id, $3, $4, $5, 'pending', now() FROM unnest($1::text[], $2::int[]) AS t(id, endpoint_id)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [ids, endpoints.map((e) => e.id), event.accountId, event.type, body],
    );
    await this.jobs.sendMany<DeliverJob>(DELIVER_QUEUE, inserted.map((r) => ({ deliveryId: r.id })));
    return inserted.length;
  }

  /** One job: one attempt of one delivery, if it is still pending, due and not being attempted elsewhere. */
  async deliver(deliveryId: string): Promise<void> {
    // Claim, and read the delivery and its endpoint, in one round trip (a fan-out runs thousands).
    const claimed: ClaimedRow[] = await this.db.query(
      `WITH c AS (
         UPDATE webhook_deliveries SET locked_until = now() + make_interval(secs => $2)
         WHERE id = $1 AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())
           AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
         RETURNING id, endpoint_id, payload, attempts, attempt_log)
       SELECT c.*, e.url, e.secret_sealed, e.enabled, e.disabled_reason, e.failing_since, e.id IS NOT NULL AS endpoint_exists
       FROM c LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id`,
      [deliveryId, this.settings.timeoutMs / 1000 + 30],
    );
    if (claimed.length === 0) {
      // Not due yet, or being attempted by a worker that may have died: look again when the lock
      // expires, so a crash mid-attempt never strands a delivery (this job is the only one we hold).
      const [row]: { wait: number }[] = await this.db.query(
        `SELECT EXTRACT(EPOCH FROM GREATEST(COALESCE(locked_until, now()), COALESCE(next_attempt_at, now())) - now())::float8 AS wait
         FROM webhook_deliveries WHERE id = $1 AND status = 'pending'`,
        [deliveryId],
      );
      if (row) await this.jobs.send<DeliverJob>(DELIVER_QUEUE, { deliveryId }, { startAfterSeconds: Math.ceil(row.wait) + 1 });
      return;
    }
    const { delivery, endpoint } = fromClaim(claimed[0]!);
    if (!endpoint || !endpoint.enabled) {
      await this.finish(delivery, 'failed', { at: this.clock.now().toISOString(), status_code: null, error: `endpoint disabled: ${endpoint?.disabledReason ?? 'deleted'}`, duration_ms: 0 }, false, false);
      return;
    }
    const attempt = await this.attempt(endpoint, delivery);
    if (attempt.error === null) {
      await this.finish(delivery, 'succeeded', attempt, true);
      // Read with the claim: a healthy endpoint costs no write here.
      if (endpoint.failingSince) await this.db.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [endpoint.id]);
      return;
    }
    const failingSince = endpoint.failingSince ?? this.clock.now();
    if (!endpoint.failingSince) await this.db.query('UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL', [endpoint.id, failingSince]);
    const failingHours = (this.clock.now().getTime() - failingSince.getTime()) / 3_600_000;
    if (endpoint.failingSince && failingHours >= this.settings.disableAfterHours) {
      const reason = `Disabled on ${this.clock.now().toISOString()}: every delivery has failed since ${failingSince.toISOString()} (last: ${attempt.error}).`;
      await this.db.query('UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = $1', [endpoint.id, reason]);
      await this.finish(delivery, 'failed', attempt, false);
      return;
    }
    const delay = this.delays[delivery.attempts]; // attempts before this one: 0 for the first
    if (delay === undefined) {
      await this.finish(delivery, 'failed', attempt, false);
      return;
    }
    await this.db.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, attempt_log = $2, next_attempt_at = now() + make_interval(secs => $3), locked_until = NULL WHERE id = $1`,
      [delivery.id, JSON.stringify(appendLog(delivery.attemptLog, attempt)), delay],
    );
    await this.jobs.send<DeliverJob>(DELIVER_QUEUE, { deliveryId: delivery.id }, { startAfterSeconds: delay });
  }

  /** A test ping: one signed attempt now, recorded in the endpoint's log, never retried. */
  async ping(accountId: number, endpointId: number): Promise<WebhookDelivery> {
    const endpoint = await this.endpoints.get(accountId, endpointId);
    const at = this.clock.now();
    const repo = this.db.getRepository(WebhookDelivery);
    const delivery = await repo.save(
      repo.create({
        id: newMessageId(),
        endpointId,
        accountId,
        eventType: PING_EVENT,
        payload: JSON.stringify({ type: PING_EVENT, timestamp: at.toISOString(), data: { endpoint_id: endpointId } }),
        status: 'pending',
        attempts: 0,
        attemptLog: [],
        nextAttemptAt: null,
        lockedUntil: null,
        deliveredAt: null,
      }),
    );
    const attempt = await this.attempt(endpoint, delivery);
    await this.finish(delivery, attempt.error === null ? 'succeeded' : 'failed', attempt, attempt.error === null);
    return repo.findOneByOrFail({ id: delivery.id });
  }

  listDeliveries(accountId: number, endpointId: number, status: DeliveryStatus | undefined, offset: number, limit: number): Promise<[WebhookDelivery[], number]> {
    return this.db.getRepository(WebhookDelivery).findAndCount({
      where: { accountId, endpointId, ...(status ? { status } : {}) },
      order: { created: 'DESC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** Re-sends the job of pending deliveries that are overdue (a job lost between the insert and the send). */
  async sweep(): Promise<number> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at < now() - interval '2 minutes'
         AND (locked_until IS NULL OR locked_until < now()) ORDER BY next_attempt_at LIMIT 1000`,
    );
    await this.jobs.sendMany<DeliverJob>(DELIVER_QUEUE, rows.map(({ id }) => ({ deliveryId: id })));
    return rows.length;
  }

  private async attempt(endpoint: WebhookEndpoint, delivery: WebhookDelivery): Promise<DeliveryAttempt> {
    const at = this.clock.now();
    const started = Date.now();
    const headers = { 'content-type': 'application/json', ...signedHeaders(this.endpoints.secretOf(endpoint), delivery.id, at, delivery.payload) };
    try {
      const res = await safeFetch(endpoint.url, {
        method: 'POST',
        body: delivery.payload,
        headers,
        maxRedirects: 0,
        timeoutMs: this.settings.timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
        allowHosts: [...this.core.fetchAllowHosts],
      });
      return { at: at.toISOString(), status_code: res.status, error: null, duration_ms: Date.now() - started };
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      return { at: at.toISOString(), status_code: err.status ?? null, error: `${err.code}: ${err.message}`, duration_ms: Date.now() - started };
    }
  }

  /** Final state of a delivery; `counted` is false when no request was made (endpoint gone or disabled). */
  private async finish(delivery: WebhookDelivery, status: DeliveryStatus, attempt: DeliveryAttempt, delivered: boolean, counted = true): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = $2, attempts = attempts + $5, attempt_log = $3, delivered_at = $4, next_attempt_at = NULL, locked_until = NULL WHERE id = $1`,
      [delivery.id, status, JSON.stringify(appendLog(delivery.attemptLog, attempt)), delivered ? this.clock.now() : null, counted ? 1 : 0],
    );
  }
}

const appendLog = (log: DeliveryAttempt[], attempt: DeliveryAttempt): DeliveryAttempt[] => [...log, attempt].slice(-LOG_LENGTH);

interface ClaimedRow {
  id: string;
  endpoint_id: number;
  payload: string;
  attempts: number;
  attempt_log: DeliveryAttempt[];
  url: string | null;
  secret_sealed: string | null;
  enabled: boolean | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  endpoint_exists: boolean;
}

/** The claimed delivery and its endpoint (null when deleted), as the attempt needs them. */
function fromClaim(row: ClaimedRow): { delivery: WebhookDelivery; endpoint: WebhookEndpoint | null } {
  const delivery = Object.assign(new WebhookDelivery(), {
    id: row.id,
    endpointId: row.endpoint_id,
    payload: row.payload,
    attempts: row.attempts,
    attemptLog: row.attempt_log ?? [],
  });
  const endpoint = row.endpoint_exists
    ? Object.assign(new WebhookEndpoint(), {
        id: row.endpoint_id,
        url: row.url!,
        secretSealed: row.secret_sealed!,
        enabled: row.enabled!,
        disabledReason: row.disabled_reason,
        failingSince: row.failing_since === null ? null : new Date(row.failing_since),
      })
    : null;
  return { delivery, endpoint };
}
