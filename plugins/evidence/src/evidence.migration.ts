import type { MigrationInterface, QueryRunner } from '@filigrane/plugin-api';

export class EvidenceInit1795642745777 implements MigrationInterface {
  name = 'EvidenceInit1795642745777';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE evidence_packs (
        id uuid PRIMARY KEY,
        account_id integer NOT NULL,
        match_ids text[] NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'complete', 'failed')),
        automatic boolean NOT NULL DEFAULT false,
        base_url text NOT NULL DEFAULT '',
        attempts integer NOT NULL DEFAULT 0,
        error text,
        blob_key text,
        sha256 text,
        size bigint,
        summary jsonb NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL DEFAULT now(),
        completed timestamptz
      )`);
    await q.query('CREATE INDEX evidence_packs_account ON evidence_packs (account_id, created DESC)');
    // One automatic pack per match, however often match.created is delivered.
    await q.query('CREATE UNIQUE INDEX evidence_packs_automatic ON evidence_packs (account_id, (match_ids[1])) WHERE automatic');
    await q.query(`
      CREATE TABLE evidence_keys (
        id text PRIMARY KEY,
        algorithm text NOT NULL,
        public_key text NOT NULL,
        sealed_private_key text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE evidence_settings (
        account_id integer PRIMARY KEY,
        auto_capture boolean NOT NULL DEFAULT false
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE evidence_settings');
    await q.query('DROP TABLE evidence_keys');
    await q.query('DROP TABLE evidence_packs');
  }
}

/** The build's heartbeat: a build whose worker died is noticed and taken over. */
export class EvidenceBuildHeartbeat1795900000000 implements MigrationInterface {
  name = 'EvidenceBuildHeartbeat1795900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE evidence_packs ADD COLUMN heartbeat timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE evidence_packs DROP COLUMN heartbeat');
  }
}
