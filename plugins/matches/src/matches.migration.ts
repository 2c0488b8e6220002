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
