import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { BlobStore } from '@filigrane/core';
import { queryPath } from './crawl-traps.js';

/** Links refused for a path's query variants that get a row of their own; the later ones are counted in the path's summary row. */
export const QUERY_REFUSALS_LOGGED = 100;

/** Kinds of crawl_items rows: the four logs, and robots.txt fetches (only in the WARC). */
export type ItemRowKind = 'page' | 'image' | 'video' | 'document' | 'robots';

export interface ItemFields {
  pageUrl?: string | null;
  status?: number | null;
  contentType?: string | null;
  bytes?: number | null;
  width?: number | null;
  height?: number | null;
  format?: string | null;
  md5?: string | null;
  credit?: string | null;
  title?: string | null;
  matches?: number;
  watermarked?: boolean;
  outcome: string;
  blob?: string | null;
  /** The fetch's request and response as gzipped WARC records, written with the next flush. */
  warcRecords?: Buffer;
}

/** A frontier row handled: marked done, with the validators of a 2xx response when `fetched`. */
export interface DoneMark {
  id: string;
  fetched?: { etag: string | null; lastModified: string | null; md5: string | null };
}

/** The columns of a crawl_items row that are written as read (the batch writer reads them back). */
export interface CrawlItemFields {
  url: string;
  page_url: string | null;
  status: number | null;
  content_type: string | null;
  width: number | null;
  height: number | null;
  format: string | null;
  md5: string | null;
  credit: string | null;
  title: string | null;
  matches: number;
  watermarked: boolean;
  outcome: string;
  blob: string | null;
  warc: string | null;
}

interface ItemRow extends CrawlItemFields {
  kind: ItemRowKind;
  bytes: number | null;
  records: Buffer | null;
}

/** JSON for jsonb parameters: NUL characters (which PostgreSQL text cannot hold) removed from hostile pages' strings. */
const json = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? v.replace(/\u0000/g, '') : v));

/**
 * What a crawl learnt, buffered and written in one statement (one round trip to a database that
 * may be single-threaded and embedded): log rows, links found, frontier rows done, counters, and
 * the WARC records of the fetches in one blob. A page is marked done in the same statement that
 * stores its links and its log row (data-modifying WITH clauses all run, in one statement), so a kill -9 loses whole pages (fetched again on resume),
 * never half of one.
 */
export class CrawlWrites {
  private items = new Map<string, ItemRow>();
  private links = new Map<string, number>();
  private done: DoneMark[] = [];
  private counters = { pages: 0, bytes: 0, images: 0 };
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: DataSource,
    private readonly blobs: BlobStore,
    private readonly sessionId: number,
    private readonly cycle: number,
    /** Blob prefix of the crawl's WARC pieces. */
    private readonly warcPrefix: string,
    /** CRAWL_MAX_QUERY_VARIANTS: distinct query strings of one path the frontier takes in a session. */
    private readonly maxQueryVariants: number,
  ) {}

  /** Pages and bytes fetched, images stored, not yet written. */
  get pending(): { pages: number; bytes: number; images: number; rows: number } {
    return { ...this.counters, rows: this.items.size + this.done.length };
  }

  /** One row of the crawl's logs; a URL reprocessed (after a restart) replaces its row, never adds one. */
  item(kind: ItemRowKind, url: string, f: ItemFields): void {
    this.items.set(`${kind} ${url}`, {
      kind, url, page_url: f.pageUrl ?? null, status: f.status ?? null, content_type: f.contentType ?? null, bytes: f.bytes ?? null,
      width: f.width ?? null, height: f.height ?? null, format: f.format ?? null, md5: f.md5 ?? null, credit: f.credit ?? null,
      title: f.title ?? null, matches: f.matches ?? 0, watermarked: f.watermarked ?? false, outcome: f.outcome, blob: f.blob ?? null,
      warc: null, records: f.warcRecords ?? null,
    });
  }

  addLinks(urls: Iterable<string>, depth: number): void {
    for (const u of urls) {
      const known = this.links.get(u);
      if (known === undefined || depth < known) this.links.set(u, depth);
    }
  }

  markDone(mark: DoneMark): void {
    this.done.push(mark);
  }

  count(what: 'pages' | 'bytes' | 'images', n = 1): void {
    this.counters[what] += n;
  }

  /** Writes everything buffered; flushes run one after the other. */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.write());
    this.flushing = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    if (this.items.size === 0 && this.links.size === 0 && this.done.length === 0 && !this.counters.pages && !this.counters.bytes && !this.counters.images) return;
    const items = [...this.items.values()];
    const links = [...this.links].map(([url, depth]) => ({ url, depth, path: queryPath(url) }));
    const done = this.done;
    const counters = this.counters;
    this.items = new Map();
    this.links = new Map();
    this.done = [];
    this.counters = { pages: 0, bytes: 0, images: 0 };
    // The WARC records of these fetches go into one blob first: rows never point at a missing piece.
    const records = items.filter((i) => i.records).map((i) => i.records!);
    if (records.length) {
      const key = `${this.warcPrefix}/${randomUUID()}.warc.gz`;
      await this.blobs.put(key, Buffer.concat(records));
      for (const i of items) if (i.records) i.warc = key;
    }
    const rows = items.map(({ records: _records, ...row }) => row);
    const marks = done.map((d) => ({ id: d.id, fetched: !!d.fetched, etag: d.fetched?.etag ?? null, last_modified: d.fetched?.lastModified ?? null, md5: d.fetched?.md5 ?? null }));
    // Links with a query string new to the frontier count against their path's variants: beyond
    // CRAWL_MAX_QUERY_VARIANTS they are refused (a calendar's `?month=N+1` without end), each with a
    // row of the pages log (the first ones of each path) and a summary row `<path>?*` with the count.
    await this.db.query(
      `WITH l AS (
         SELECT * FROM jsonb_to_recordset($3::jsonb) AS l(url text, depth int, path text)
       ), fresh AS (
         SELECT l.url, l.path, row_number() OVER (PARTITION BY l.path ORDER BY l.depth, l.url) AS n FROM l
         WHERE l.path IS NOT NULL AND NOT EXISTS (SELECT 1 FROM crawl_urls c WHERE c.session_id = $1 AND c.url = l.url AND c.kind = 'page')
       ), verdict AS (
         SELECT f.url, f.path, COALESCE(q.variants, 0) + f.n > $9::int AS over, COALESCE(q.refused, 0) AS refused_before
         FROM fresh f LEFT JOIN crawl_query_paths q ON q.session_id = $1 AND q.path = f.path
       ), refused AS (
         SELECT v.url, v.path, v.refused_before + row_number() OVER (PARTITION BY v.path ORDER BY v.url) AS r FROM verdict v WHERE v.over
       ), paths AS (
         INSERT INTO crawl_query_paths (session_id, path, variants, refused)
         SELECT $1, v.path, count(*) FILTER (WHERE NOT v.over), count(*) FILTER (WHERE v.over) FROM verdict v GROUP BY v.path
         ON CONFLICT (session_id, path) DO UPDATE SET variants = crawl_query_paths.variants + EXCLUDED.variants, refused = crawl_query_paths.refused + EXCLUDED.refused
         RETURNING path, refused
       ), links AS (
         INSERT INTO crawl_urls (session_id, kind, url, depth, cycle)
         SELECT $1, 'page', l.url, l.depth, $2 FROM l WHERE NOT EXISTS (SELECT 1 FROM refused r WHERE r.url = l.url)
         ON CONFLICT (session_id, url, kind) DO NOTHING
       ), refusals AS (
         INSERT INTO crawl_items (session_id, cycle, kind, url, outcome)
         SELECT $1, $2, 'page', r.url, 'not followed: more than ' || $9::int || ' query variants of ' || r.path || ' (CRAWL_MAX_QUERY_VARIANTS; crawler trap)'
         FROM refused r WHERE r.r <= $10::int
         UNION ALL
         SELECT $1, $2, 'page', p.path || '?*', 'not followed: ' || p.refused || ' links to query variants of ' || p.path || ' beyond the first ' || $9::int || ' (CRAWL_MAX_QUERY_VARIANTS; crawler trap)'
         FROM paths p WHERE p.refused > $10::int
         ON CONFLICT (session_id, cycle, kind, url) DO UPDATE SET outcome = EXCLUDED.outcome
       ), items AS (
         INSERT INTO crawl_items (session_id, cycle, kind, url, page_url, status, content_type, bytes, width, height, format, md5, credit, title,
                                  matches, watermarked, outcome, blob, warc)
         SELECT $1, $2, i.kind, i.url, i.page_url, i.status, i.content_type, i.bytes, i.width, i.height, i.format, i.md5, i.credit, i.title,
                i.matches, i.watermarked, i.outcome, i.blob, i.warc
         FROM jsonb_to_recordset($4::jsonb) AS i(kind text, url text, page_url text, status int, content_type text, bytes bigint, width int,
                height int, format text, md5 text, credit text, title text, matches int, watermarked boolean, outcome text, blob text, warc text)
         ON CONFLICT (session_id, cycle, kind, url) DO UPDATE SET status = EXCLUDED.status, content_type = EXCLUDED.content_type,
           bytes = EXCLUDED.bytes, width = EXCLUDED.width, height = EXCLUDED.height, format = EXCLUDED.format, md5 = EXCLUDED.md5,
           credit = EXCLUDED.credit, title = EXCLUDED.title, matches = EXCLUDED.matches, watermarked = EXCLUDED.watermarked,
           outcome = EXCLUDED.outcome, blob = EXCLUDED.blob, warc = EXCLUDED.warc
       ), done AS (
         UPDATE crawl_urls u SET state = 'done', claimed_until = NULL,
           etag = CASE WHEN d.fetched THEN d.etag ELSE u.etag END,
           last_modified = CASE WHEN d.fetched THEN d.last_modified ELSE u.last_modified END,
           md5 = COALESCE(d.md5, u.md5)
         FROM jsonb_to_recordset($5::jsonb) AS d(id bigint, fetched boolean, etag text, last_modified text, md5 text)
         WHERE u.id = d.id AND u.cycle = $2
       )
       UPDATE crawl_sessions SET pages = pages + $6, bytes = bytes + $7, images = images + $8, heartbeat = now() WHERE id = $1`,
      [this.sessionId, this.cycle, json(links), json(rows), json(marks), counters.pages, counters.bytes, counters.images, this.maxQueryVariants, QUERY_REFUSALS_LOGGED],
    );
  }
}
