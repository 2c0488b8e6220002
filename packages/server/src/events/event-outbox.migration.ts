import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The platform's event outbox: a row per event written in the producer's transaction, delivered by
 * the `core.events` job to every listener (delivered_to: the listeners done), retried with backoff.
 */
export class EventOutbox1764300000000 implements MigrationInterface {
  name = 'EventOutbox1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_outbox (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL,
        type text NOT NULL,
        ordering_key text,
        data jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        delivered_to text[] NOT NULL DEFAULT '{}',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        last_error text,
        delivered_at timestamptz,
        dead boolean NOT NULL DEFAULT false
      )`);
    await q.query('CREATE INDEX event_outbox_pending ON event_outbox (id) WHERE delivered_at IS NULL');
    await q.query('CREATE INDEX event_outbox_key ON event_outbox (ordering_key, id) WHERE delivered_at IS NULL');
    await q.query('CREATE INDEX event_outbox_delivered ON event_outbox (delivered_at) WHERE delivered_at IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE event_outbox');
  }
}
