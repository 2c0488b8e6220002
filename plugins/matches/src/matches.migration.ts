import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MatchesInit1763700008000 implements MigrationInterface {
  name = 'MatchesInit1763700008000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sites (
        id serial PRIMARY KEY,
        domain text NOT NULL UNIQUE,
        name text NOT NULL,
        suffix text NOT NULL,
        country text
      )`);
    await q.query(`
      CREATE TABLE matches (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        media_id bigint NOT NULL REFERENCES media(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('web', 'press', 'credit')),
        source text NOT NULL,
        watermarked boolean NOT NULL,
        exclusive boolean,
        export boolean NOT NULL DEFAULT true,
        tags text[] NOT NULL DEFAULT '{}',
        sessions integer[] NOT NULL DEFAULT '{}',
        site_id integer REFERENCES sites(id),
        host text,
        page_url text NOT NULL DEFAULT '',
        page jsonb NOT NULL DEFAULT '{}',
        page_date_published timestamptz,
        query_url text NOT NULL DEFAULT '',
        query_width integer,
        query_height integer,
        query_format text,
        press jsonb,
        credit text,
        date_created timestamptz NOT NULL DEFAULT now(),
        date_updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, media_id, kind, query_url, page_url)
      )`);
    await q.query('CREATE INDEX matches_account_created ON matches (account_id, date_created DESC, id DESC)');
    await q.query('CREATE INDEX matches_media ON matches (media_id)');
    await q.query('CREATE INDEX matches_tags ON matches USING gin (tags)');
    await q.query('CREATE INDEX matches_sessions ON matches USING gin (sessions)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE matches');
    await q.query('DROP TABLE sites');
  }
}

/**
 * Matches keep the image as it was seen (web file, printed image) beside the registered media,
 * and credit matches (a credit line names the account) need no media at all.
 */
export class MatchesSightedImage1763800000000 implements MigrationInterface {
  name = 'MatchesSightedImage1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE matches ADD COLUMN image jsonb');
    await q.query('ALTER TABLE matches ALTER COLUMN media_id DROP NOT NULL');
    await q.query(`ALTER TABLE matches ADD CONSTRAINT matches_media_unless_credit CHECK (media_id IS NOT NULL OR kind = 'credit')`);
    await q.query('ALTER TABLE matches DROP CONSTRAINT matches_account_id_media_id_kind_query_url_page_url_key');
    await q.query('ALTER TABLE matches ADD CONSTRAINT matches_sighting_key UNIQUE NULLS NOT DISTINCT (account_id, media_id, kind, query_url, page_url)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM matches WHERE media_id IS NULL`);
    await q.query('ALTER TABLE matches DROP CONSTRAINT matches_sighting_key');
    await q.query('ALTER TABLE matches ADD CONSTRAINT matches_account_id_media_id_kind_query_url_page_url_key UNIQUE (account_id, media_id, kind, query_url, page_url)');
    await q.query('ALTER TABLE matches DROP CONSTRAINT matches_media_unless_credit');
    await q.query('ALTER TABLE matches ALTER COLUMN media_id SET NOT NULL');
    await q.query('ALTER TABLE matches DROP COLUMN image');
  }
}

/** Video matches: where the copy lies in the query video and in the registered one. */
export class MatchesVideo1763850000000 implements MigrationInterface {
  name = 'MatchesVideo1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE matches ADD COLUMN video jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE matches DROP COLUMN video');
  }
}

/** `site_directory`: the matches plugin's documented read view of the sites it keeps (id, domain, name, suffix, country). */
export class MatchesSiteDirectory1764300003000 implements MigrationInterface {
  name = 'MatchesSiteDirectory1764300003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE VIEW site_directory AS SELECT id, domain, name, suffix, country FROM sites');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP VIEW site_directory');
  }
}

/** Where the copy and the original overlap (MatchRecorder's `region`), for the console's side-by-side view. */
export class MatchesRegion1764900002000 implements MigrationInterface {
  name = 'MatchesRegion1764900002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE matches ADD COLUMN region jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE matches DROP COLUMN region');
  }
}
