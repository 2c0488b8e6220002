import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A crawling session (v3): a site crawled again and again; see crawler.migration.ts for the tables. */
@Entity({ name: 'crawl_sessions' })
export class CrawlSession {
  @PrimaryGeneratedColumn({ type: 'integer' }) id!: number;
  @Column({ type: 'integer', name: 'account_id' }) accountId!: number;
  @Column({ type: 'text', array: true, name: 'start_urls' }) startUrls!: string[];
  @Column({ type: 'text' }) site!: string;
  @Column({ type: 'text' }) state!: string;
  @Column({ type: 'integer', name: 'cycle_count' }) cycleCount!: number;
  @Column({ type: 'integer' }) cycle!: number;
  @Column({ type: 'boolean' }) search!: boolean;
  @Column({ type: 'double precision', name: 'crawl_delay' }) crawlDelay!: number;
  @Column({ type: 'double precision', name: 'download_delay' }) downloadDelay!: number;
  @Column({ type: 'double precision', name: 'download_timeout' }) downloadTimeout!: number;
  @Column({ type: 'integer', name: 'max_pages' }) maxPages!: number;
  @Column({ type: 'bigint', name: 'max_bytes' }) maxBytes!: string;
  @Column({ type: 'integer' }) pages!: number;
  @Column({ type: 'bigint' }) bytes!: string;
  @Column({ type: 'integer' }) images!: number;
  @Column({ type: 'text', nullable: true }) reason!: string | null;
  @Column({ type: 'timestamptz' }) ctime!: Date;
  @Column({ type: 'timestamptz' }) mtime!: Date;
  @Column({ type: 'timestamptz', nullable: true }) stime!: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) heartbeat!: Date | null;
  /** End of the running crawl's time budget (crawl_delay); `remaining` seconds are kept while paused. */
  @Column({ type: 'timestamptz', nullable: true }) deadline!: Date | null;
  @Column({ type: 'double precision', nullable: true }) remaining!: number | null;
  @Column({ type: 'timestamptz', nullable: true, name: 'next_crawl' }) nextCrawl!: Date | null;
}

/** One batch per finished crawl; `artifacts` holds the blob keys of its logs, TAR and WARC. */
@Entity({ name: 'crawl_batches' })
export class CrawlBatch {
  @PrimaryGeneratedColumn({ type: 'integer' }) id!: number;
  @Column({ type: 'integer', name: 'session_id' }) sessionId!: number;
  @Column({ type: 'integer', name: 'account_id' }) accountId!: number;
  @Column({ type: 'integer', name: 'crawl_cycle' }) crawlCycle!: number;
  @Column({ type: 'timestamptz' }) ctime!: Date;
  @Column({ type: 'integer' }) images!: number;
  @Column({ type: 'integer' }) videos!: number;
  @Column({ type: 'integer' }) documents!: number;
  @Column({ type: 'integer' }) pages!: number;
  @Column({ type: 'jsonb' }) artifacts!: Record<string, string>;
}
