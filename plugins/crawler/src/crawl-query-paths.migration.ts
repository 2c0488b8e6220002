import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Query variants per path, per session: how many distinct query strings of a path the frontier
 * took (capped by CRAWL_MAX_QUERY_VARIANTS: endless calendars) and how many links beyond it were
 * refused. Kept in the database, so the cap holds across worker processes and restarts.
 */
export class CrawlQueryPaths1796300000000 implements MigrationInterface {
  name = 'CrawlQueryPaths1796300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crawl_query_paths (
        session_id integer NOT NULL REFERENCES crawl_sessions(id) ON DELETE CASCADE,
        path text NOT NULL,
        variants integer NOT NULL DEFAULT 0,
        refused integer NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, path)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE crawl_query_paths');
  }
}
