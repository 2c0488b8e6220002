import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Aggregate rows kept by a trigger on `matches`, in the same transaction as every match write
 * (any source, any process): a crash can never leave a group behind its matches, and user
 * fields (tags, export, _version) are never touched by the trigger.
 */
export class AggregationsInit1763900000000 implements MigrationInterface {
  name = 'AggregationsInit1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE aggregations (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL,
        name text NOT NULL,
        group_key text NOT NULL,
        media_id bigint,
        site_id integer,
        page_url text,
        match_count integer NOT NULL DEFAULT 0,
        watermarked_count integer NOT NULL DEFAULT 0,
        web_count integer NOT NULL DEFAULT 0,
        press_count integer NOT NULL DEFAULT 0,
        credit_count integer NOT NULL DEFAULT 0,
        video_count integer NOT NULL DEFAULT 0,
        first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL,
        sessions integer[] NOT NULL DEFAULT '{}',
        export boolean NOT NULL DEFAULT true,
        tags text[] NOT NULL DEFAULT '{}',
        version integer NOT NULL DEFAULT 0,
        created timestamptz NOT NULL,
        updated timestamptz NOT NULL,
        UNIQUE (account_id, name, group_key)
      )`);
    await q.query('CREATE INDEX aggregations_recent ON aggregations (account_id, name, last_seen DESC, id DESC)');
    await q.query('CREATE INDEX aggregations_media ON aggregations (account_id, name, media_id)');
    await q.query('CREATE INDEX aggregations_site ON aggregations (account_id, name, site_id)');
    await q.query('CREATE INDEX aggregations_tags ON aggregations USING gin (tags)');
    // One match counts once in each of the three groupings; a match without media (credit line
    // only) groups under "no media" ('-'), a match without a page under its image URL.
    await q.query(`
      CREATE FUNCTION aggregations_keys(m matches) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
        SELECT ARRAY[
          COALESCE(m.media_id::text, '-'),
          COALESCE(m.media_id::text, '-') || '|' || COALESCE(m.site_id::text, '-'),
          COALESCE(m.media_id::text, '-') || '|' || COALESCE(m.site_id::text, '-') || '|' || md5(COALESCE(NULLIF(m.page_url, ''), m.query_url, ''))
        ]
      $$`);
    await q.query(`
      CREATE FUNCTION aggregations_add(m matches) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        names text[] := ARRAY['group-path', 'group-site-path', 'group-site-path-pageurl'];
        keys text[] := aggregations_keys(m);
      BEGIN
        FOR i IN 1..3 LOOP
          INSERT INTO aggregations AS a (account_id, name, group_key, media_id, site_id, page_url, match_count, watermarked_count,
                                         web_count, press_count, credit_count, video_count, first_seen, last_seen, sessions, created, updated)
          VALUES (m.account_id, names[i], keys[i], m.media_id, CASE WHEN i > 1 THEN m.site_id END,
                  CASE WHEN i = 3 THEN COALESCE(NULLIF(m.page_url, ''), NULLIF(m.query_url, '')) END, 1, m.watermarked::int,
                  (m.kind = 'web')::int, (m.kind = 'press')::int, (m.kind = 'credit')::int, (m.kind = 'video')::int,
                  m.date_created, m.date_updated, m.sessions, m.date_created, m.date_updated)
          ON CONFLICT (account_id, name, group_key) DO UPDATE SET
            match_count = a.match_count + 1,
            watermarked_count = a.watermarked_count + EXCLUDED.watermarked_count,
            web_count = a.web_count + EXCLUDED.web_count,
            press_count = a.press_count + EXCLUDED.press_count,
            credit_count = a.credit_count + EXCLUDED.credit_count,
            video_count = a.video_count + EXCLUDED.video_count,
            first_seen = LEAST(a.first_seen, EXCLUDED.first_seen),
            last_seen = GREATEST(a.last_seen, EXCLUDED.last_seen),
            sessions = CASE WHEN EXCLUDED.sessions <@ a.sessions THEN a.sessions
                            ELSE ARRAY(SELECT DISTINCT s FROM unnest(a.sessions || EXCLUDED.sessions) s ORDER BY 1) END,
            updated = GREATEST(a.updated, EXCLUDED.updated);
        END LOOP;
      END $$`);
    await q.query(`
      CREATE FUNCTION aggregations_remove(m matches) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        names text[] := ARRAY['group-path', 'group-site-path', 'group-site-path-pageurl'];
        keys text[] := aggregations_keys(m);
      BEGIN
        FOR i IN 1..3 LOOP
          UPDATE aggregations SET
            match_count = match_count - 1,
            watermarked_count = watermarked_count - m.watermarked::int,
            web_count = web_count - (m.kind = 'web')::int,
            press_count = press_count - (m.kind = 'press')::int,
            credit_count = credit_count - (m.kind = 'credit')::int,
            video_count = video_count - (m.kind = 'video')::int
          WHERE account_id = m.account_id AND name = names[i] AND group_key = keys[i];
        END LOOP;
        -- A group with no match left is gone (its media was deleted, or its matches).
        DELETE FROM aggregations WHERE account_id = m.account_id AND name = ANY(names) AND group_key = ANY(keys) AND match_count <= 0;
      END $$`);
    await q.query(`
      CREATE FUNCTION aggregations_on_match() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM aggregations_add(NEW);
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM aggregations_remove(OLD);
        ELSIF aggregations_keys(OLD) IS DISTINCT FROM aggregations_keys(NEW) OR OLD.kind IS DISTINCT FROM NEW.kind OR OLD.account_id <> NEW.account_id THEN
          PERFORM aggregations_remove(OLD);
          PERFORM aggregations_add(NEW);
        ELSE
          -- A new sighting of a known match: watermark evidence, dates and sessions move on.
          UPDATE aggregations a SET
            watermarked_count = a.watermarked_count + NEW.watermarked::int - OLD.watermarked::int,
            last_seen = GREATEST(a.last_seen, NEW.date_updated),
            sessions = CASE WHEN NEW.sessions <@ a.sessions THEN a.sessions
                            ELSE ARRAY(SELECT DISTINCT s FROM unnest(a.sessions || NEW.sessions) s ORDER BY 1) END,
            updated = GREATEST(a.updated, NEW.date_updated)
          WHERE a.account_id = NEW.account_id AND a.group_key = ANY(aggregations_keys(NEW))
            AND a.name IN ('group-path', 'group-site-path', 'group-site-path-pageurl');
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER matches_aggregations AFTER INSERT OR DELETE OR UPDATE OF media_id, site_id, page_url, query_url, kind, watermarked, date_updated, sessions, account_id
      ON matches FOR EACH ROW EXECUTE FUNCTION aggregations_on_match()`);
    // Matches recorded before this migration.
    await q.query('SELECT aggregations_add(m) FROM matches m ORDER BY m.id');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER matches_aggregations ON matches');
    await q.query('DROP FUNCTION aggregations_on_match(), aggregations_add(matches), aggregations_remove(matches), aggregations_keys(matches)');
    await q.query('DROP TABLE aggregations');
  }
}
