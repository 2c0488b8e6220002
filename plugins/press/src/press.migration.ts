import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PressIssues1763900000000 implements MigrationInterface {
  name = 'PressIssues1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE press_issues (
        id serial PRIMARY KEY,
        name text NOT NULL,
        date date NOT NULL,
        domain text,
        origin text NOT NULL,
        ingested_by integer REFERENCES accounts(id) ON DELETE SET NULL,
        filename text,
        source_url text,
        size_bytes bigint NOT NULL,
        sha256 text NOT NULL,
        base_url text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'running', 'complete', 'failed')),
        pages_total integer,
        pages_done integer NOT NULL DEFAULT 0,
        images_found integer NOT NULL DEFAULT 0,
        matches_found integer NOT NULL DEFAULT 0,
        credits_found integer NOT NULL DEFAULT 0,
        error jsonb,
        created timestamptz NOT NULL DEFAULT now(),
        started timestamptz,
        finished timestamptz
      )`);
    await q.query('CREATE INDEX press_issues_created ON press_issues (created DESC, id DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE press_issues');
  }
}

/** Ingest looks issues up by their bytes' digest (one issue per PDF). */
export class PressIssueDigest1764100000000 implements MigrationInterface {
  name = 'PressIssueDigest1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX IF NOT EXISTS press_issues_sha256 ON press_issues (sha256)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS press_issues_sha256');
  }
}
