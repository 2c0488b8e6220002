import type { MigrationInterface, QueryRunner } from 'typeorm';

/** How many times a page was taken over from a worker that stopped while it held it: a page that kills its workers is skipped after a few. */
export class CrawlPageTakeovers1796400000000 implements MigrationInterface {
  name = 'CrawlPageTakeovers1796400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE crawl_urls ADD COLUMN takeovers smallint NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE crawl_urls DROP COLUMN takeovers');
  }
}
