import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CrawlerInit1763800008000 implements MigrationInterface {
  name = 'CrawlerInit1763800008000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crawl_sessions (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        start_urls text[] NOT NULL,
        site text NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        cycle_count integer NOT NULL DEFAULT 0,
        cycle integer NOT NULL DEFAULT 0,
        search boolean NOT NULL,
        crawl_delay double precision NOT NULL,
        download_delay double precision NOT NULL,
        download_timeout double precision NOT NULL,
        max_pages integer NOT NULL,
        max_bytes bigint NOT NULL,
        pages integer NOT NULL DEFAULT 0,
        bytes bigint NOT NULL DEFAULT 0,
        images integer NOT NULL DEFAULT 0,
        reason text,
        ctime timestamptz NOT NULL DEFAULT now(),
        mtime timestamptz NOT NULL DEFAULT now(),
        stime timestamptz,
        heartbeat timestamptz,
        deadline timestamptz,
        remaining double precision,
        next_crawl timestamptz
      )`);
    await q.query('CREATE INDEX crawl_sessions_account ON crawl_sessions (account_id, ctime)');
    await q.query('CREATE INDEX crawl_sessions_state ON crawl_sessions (state, next_crawl)');
    // Frontier and visited set: every URL a session knows, with the validators of its last fetch.
    await q.query(`
      CREATE TABLE crawl_urls (
        id bigserial PRIMARY KEY,
        session_id integer NOT NULL REFERENCES crawl_sessions(id) ON DELETE CASCADE,
        kind text NOT NULL,
        url text NOT NULL,
        depth integer NOT NULL DEFAULT 0,
        cycle integer NOT NULL,
        state text NOT NULL DEFAULT 'queued',
        claimed_until timestamptz,
        etag text,
        last_modified text,
        md5 text,
        UNIQUE (session_id, url, kind)
      )`);
    await q.query(`CREATE INDEX crawl_urls_frontier ON crawl_urls (session_id, cycle, state, depth, id) WHERE kind = 'page'`);
    // What one crawl saw: the rows of the batch's logs (one per URL and kind and crawl).
    await q.query(`
      CREATE TABLE crawl_items (
        id bigserial PRIMARY KEY,
        session_id integer NOT NULL REFERENCES crawl_sessions(id) ON DELETE CASCADE,
        cycle integer NOT NULL,
        kind text NOT NULL,
        url text NOT NULL,
        page_url text,
        status integer,
        content_type text,
        bytes bigint,
        width integer,
        height integer,
        format text,
        md5 text,
        credit text,
        title text,
        matches integer NOT NULL DEFAULT 0,
        watermarked boolean NOT NULL DEFAULT false,
        outcome text NOT NULL,
        blob text,
        warc text,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (session_id, cycle, kind, url)
      )`);
    await q.query(`
      CREATE TABLE crawl_batches (
        id serial PRIMARY KEY,
        session_id integer NOT NULL REFERENCES crawl_sessions(id) ON DELETE CASCADE,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        crawl_cycle integer NOT NULL,
        ctime timestamptz NOT NULL DEFAULT now(),
        images integer NOT NULL,
        videos integer NOT NULL,
        documents integer NOT NULL,
        pages integer NOT NULL,
        artifacts jsonb NOT NULL DEFAULT '{}',
        UNIQUE (session_id, crawl_cycle)
      )`);
    await q.query('CREATE INDEX crawl_batches_account ON crawl_batches (account_id, ctime)');
    // Politeness per origin, shared by every session and worker: the next free request slot and robots.txt.
    await q.query(`
      CREATE TABLE crawl_hosts (
        origin text PRIMARY KEY,
        next_at timestamptz NOT NULL DEFAULT now(),
        robots_status integer,
        robots text,
        robots_fetched timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE crawl_hosts');
    await q.query('DROP TABLE crawl_batches');
    await q.query('DROP TABLE crawl_items');
    await q.query('DROP TABLE crawl_urls');
    await q.query('DROP TABLE crawl_sessions');
  }
}
