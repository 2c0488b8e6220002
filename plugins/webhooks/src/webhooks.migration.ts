import type { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhooksInit1764000009000 implements MigrationInterface {
  name = 'WebhooksInit1764000009000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        description text NOT NULL DEFAULT '',
        secret_sealed text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        failing_since timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id)');
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        endpoint_id integer NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        event_type text NOT NULL,
        payload text NOT NULL,
        status text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        attempt_log jsonb NOT NULL DEFAULT '[]',
        next_attempt_at timestamptz,
        locked_until timestamptz,
        delivered_at timestamptz,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created)');
    // The sweeper's scan: pending deliveries whose job may have been lost.
    await q.query(`CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhook_endpoints');
  }
}
