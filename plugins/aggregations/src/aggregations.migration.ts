import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Aggregate rows kept by statement triggers on `matches`, in the same transaction as every match
 * write (any source, any process): a crash can never leave a group behind its matches, and user
 * fields (tags, export, _version) are never touched by the triggers.
 * The triggers read only the columns of the matches plugin's documented row contract
 * (MATCH_ROW_CONTRACT, plugins/matches/src/match-row-contract.ts, tested by matches).
 */
// A match moved to other groups, or seen again in the same ones (tags/export edits touch neither).
const MOVED = '(o.account_id, o.media_id, o.site_id, o.page_url, o.query_url, o.kind) IS DISTINCT FROM (n.account_id, n.media_id, n.site_id, n.page_url, n.query_url, n.kind)';
const TOUCHED = '(o.watermarked, o.date_updated, o.sessions) IS DISTINCT FROM (n.watermarked, n.date_updated, n.sessions)';

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
    await q.query('CREATE INDEX aggregations_page ON aggregations (account_id, name, page_url text_pattern_ops)');
    // One match counts once in each of the three groupings (level 1, 2, 3); a match without media
    // (credit line only) groups under "no media" ('-'), a match without a page under its image URL.
    await q.query(`
      CREATE FUNCTION aggregations_key(level integer, media_id bigint, site_id integer, page_url text, query_url text) RETURNS text
      LANGUAGE sql IMMUTABLE AS $$
        SELECT COALESCE(media_id::text, '-')
          || CASE WHEN level > 1 THEN '|' || COALESCE(site_id::text, '-') ELSE '' END
          || CASE WHEN level > 2 THEN '|' || md5(COALESCE(NULLIF(page_url, ''), query_url, '')) ELSE '' END
      $$`);
    await q.query(`
      CREATE VIEW aggregation_levels (level, name) AS
        VALUES (1, 'group-path'), (2, 'group-site-path'), (3, 'group-site-path-pageurl')`);
    // Set-based: one statement's matches (one from MatchRecorder, thousands from a bulk load) are
    // grouped first, so each aggregate row is written once per statement.
    await q.query(`
      CREATE FUNCTION aggregations_add(rows matches[]) RETURNS void LANGUAGE sql AS $$
        WITH r AS (
          SELECT m.*, l.level, l.name AS agg, aggregations_key(l.level, m.media_id, m.site_id, m.page_url, m.query_url) AS k
          FROM unnest(rows) m CROSS JOIN aggregation_levels l
        ), sess AS (
          SELECT r.account_id, r.agg, r.k, array_agg(DISTINCT s ORDER BY s) AS sessions FROM r, unnest(r.sessions) s GROUP BY 1, 2, 3
        ), g AS (
          SELECT account_id, agg, k, min(level) AS level, min(media_id) AS media_id, min(site_id) AS site_id,
                 min(COALESCE(NULLIF(page_url, ''), NULLIF(query_url, ''))) AS page, count(*)::int AS n,
                 (count(*) FILTER (WHERE watermarked))::int AS w, (count(*) FILTER (WHERE kind = 'web'))::int AS web,
                 (count(*) FILTER (WHERE kind = 'press'))::int AS press, (count(*) FILTER (WHERE kind = 'credit'))::int AS credit,
                 (count(*) FILTER (WHERE video IS NOT NULL))::int AS video, min(date_created) AS first_seen, max(date_updated) AS last_seen
          FROM r GROUP BY account_id, agg, k
        )
        INSERT INTO aggregations AS a (account_id, name, group_key, media_id, site_id, page_url, match_count, watermarked_count,
                                       web_count, press_count, credit_count, video_count, first_seen, last_seen, sessions, created, updated)
        SELECT g.account_id, g.agg, g.k, g.media_id, CASE WHEN g.level > 1 THEN g.site_id END, CASE WHEN g.level = 3 THEN g.page END,
               g.n, g.w, g.web, g.press, g.credit, g.video, g.first_seen, g.last_seen, COALESCE(sess.sessions, '{}'), g.first_seen, g.last_seen
        FROM g LEFT JOIN sess USING (account_id, agg, k)
        -- Rows are locked in one order by every writer, so concurrent statements cannot deadlock here.
        ORDER BY g.account_id, g.agg, g.k
        ON CONFLICT (account_id, name, group_key) DO UPDATE SET
          match_count = a.match_count + EXCLUDED.match_count,
          watermarked_count = a.watermarked_count + EXCLUDED.watermarked_count,
          web_count = a.web_count + EXCLUDED.web_count,
          press_count = a.press_count + EXCLUDED.press_count,
          credit_count = a.credit_count + EXCLUDED.credit_count,
          video_count = a.video_count + EXCLUDED.video_count,
          first_seen = LEAST(a.first_seen, EXCLUDED.first_seen),
          last_seen = GREATEST(a.last_seen, EXCLUDED.last_seen),
          sessions = CASE WHEN EXCLUDED.sessions <@ a.sessions THEN a.sessions
                          ELSE ARRAY(SELECT DISTINCT s FROM unnest(a.sessions || EXCLUDED.sessions) s ORDER BY 1) END,
          updated = GREATEST(a.updated, EXCLUDED.updated)
      $$`);
    await q.query(`
      CREATE FUNCTION aggregations_remove(rows matches[]) RETURNS void LANGUAGE sql AS $$
        WITH g AS (
          SELECT m.account_id, l.name AS agg, aggregations_key(l.level, m.media_id, m.site_id, m.page_url, m.query_url) AS k,
                 count(*)::int AS n, (count(*) FILTER (WHERE m.watermarked))::int AS w, (count(*) FILTER (WHERE m.kind = 'web'))::int AS web,
                 (count(*) FILTER (WHERE m.kind = 'press'))::int AS press, (count(*) FILTER (WHERE m.kind = 'credit'))::int AS credit,
                 (count(*) FILTER (WHERE m.video IS NOT NULL))::int AS video
          FROM unnest(rows) m CROSS JOIN aggregation_levels l GROUP BY 1, 2, 3
        )
        UPDATE aggregations a SET match_count = a.match_count - g.n, watermarked_count = a.watermarked_count - g.w,
          web_count = a.web_count - g.web, press_count = a.press_count - g.press, credit_count = a.credit_count - g.credit, video_count = a.video_count - g.video
        FROM g WHERE a.account_id = g.account_id AND a.name = g.agg AND a.group_key = g.k;
        -- A group with no match left is gone (its media was deleted, or its matches).
        DELETE FROM aggregations a USING (SELECT DISTINCT m.account_id FROM unnest(rows) m) acc
        WHERE a.account_id = acc.account_id AND a.match_count <= 0
          AND (a.name, a.group_key) IN (SELECT l.name, aggregations_key(l.level, m.media_id, m.site_id, m.page_url, m.query_url) FROM unnest(rows) m CROSS JOIN aggregation_levels l);
      $$`);
    // A new sighting of a known match (same groups): watermark evidence, dates and sessions move on.
    await q.query(`
      CREATE FUNCTION aggregations_touch(olds matches[], news matches[]) RETURNS void LANGUAGE sql AS $$
        WITH r AS (
          SELECT n.*, o.watermarked AS was_watermarked, l.name AS agg, aggregations_key(l.level, n.media_id, n.site_id, n.page_url, n.query_url) AS k
          FROM unnest(news) n JOIN unnest(olds) o ON o.id = n.id CROSS JOIN aggregation_levels l
        ), sess AS (
          SELECT r.account_id, r.agg, r.k, array_agg(DISTINCT s ORDER BY s) AS sessions FROM r, unnest(r.sessions) s GROUP BY 1, 2, 3
        ), g AS (
          SELECT account_id, agg, k, sum(watermarked::int - was_watermarked::int)::int AS dw, max(date_updated) AS last_seen FROM r GROUP BY 1, 2, 3
        )
        UPDATE aggregations a SET
          watermarked_count = a.watermarked_count + g.dw,
          last_seen = GREATEST(a.last_seen, g.last_seen),
          sessions = CASE WHEN COALESCE(sess.sessions, '{}') <@ a.sessions THEN a.sessions
                          ELSE ARRAY(SELECT DISTINCT s FROM unnest(a.sessions || sess.sessions) s ORDER BY 1) END,
          updated = GREATEST(a.updated, g.last_seen)
        FROM g LEFT JOIN sess USING (account_id, agg, k)
        WHERE a.account_id = g.account_id AND a.name = g.agg AND a.group_key = g.k
      $$`);
    await q.query(`
      CREATE FUNCTION aggregations_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM aggregations_add(ARRAY(SELECT n::matches FROM new_rows n));
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION aggregations_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM aggregations_remove(ARRAY(SELECT o::matches FROM old_rows o));
        RETURN NULL;
      END $$`);
    // Updates that move a match to other groups (never done by MatchRecorder) count as add + remove,
    // in that order so a group that keeps the match never drops to zero (and keeps its _id and tags).
    await q.query(`
      CREATE FUNCTION aggregations_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM aggregations_add(ARRAY(SELECT n::matches FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${MOVED}));
        PERFORM aggregations_remove(ARRAY(SELECT o::matches FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${MOVED}));
        PERFORM aggregations_touch(
          ARRAY(SELECT o::matches FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE NOT ${MOVED} AND ${TOUCHED}),
          ARRAY(SELECT n::matches FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE NOT ${MOVED} AND ${TOUCHED}));
        RETURN NULL;
      END $$`);
    await q.query('CREATE TRIGGER matches_aggregations_insert AFTER INSERT ON matches REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION aggregations_after_insert()');
    await q.query('CREATE TRIGGER matches_aggregations_delete AFTER DELETE ON matches REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION aggregations_after_delete()');
    await q.query(
      'CREATE TRIGGER matches_aggregations_update AFTER UPDATE ON matches REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION aggregations_after_update()',
    );
    // Matches recorded before this migration.
    await q.query('SELECT aggregations_add(ARRAY(SELECT m FROM matches m))');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['insert', 'delete', 'update']) await q.query(`DROP TRIGGER matches_aggregations_${t} ON matches`);
    await q.query('DROP FUNCTION aggregations_after_insert(), aggregations_after_delete(), aggregations_after_update()');
    await q.query('DROP FUNCTION aggregations_add(matches[]), aggregations_remove(matches[]), aggregations_touch(matches[], matches[])');
    await q.query('DROP VIEW aggregation_levels');
    await q.query('DROP FUNCTION aggregations_key(integer, bigint, integer, text, text)');
    await q.query('DROP TABLE aggregations');
  }
}
