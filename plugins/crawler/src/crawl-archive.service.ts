import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { WARCParser } from 'warcio';
import { BlobMissingError, TOKENS, type BlobStore } from '@filigrane/core';

/** The token of the crawl archive (CrawlArchive), for other plugins: `@inject(CRAWL_ARCHIVE)`. */
export const CRAWL_ARCHIVE = Symbol.for('filigrane.crawler.archive');

/** What a crawl kept of one URL: its request and response WARC records, exactly as the crawl's WARC holds them. */
export interface ArchivedFetch {
  url: string;
  sessionId: number;
  crawlCycle: number;
  /** When the crawl recorded the fetch. */
  fetchedAt: Date;
  /** The records as gzip members (a valid .warc.gz on its own, and a part of the batch's pages.warc.gz byte for byte). */
  warc: Buffer;
}

/** The records an account's crawls kept, for whoever must prove what was fetched (evidence packs). */
export interface CrawlArchive {
  /**
   * For each URL, the newest fetch of it by one of these sessions of the account (a session of
   * another account gives nothing), from the batch's WARC, or from the crawl's pieces while it runs.
   */
  records(accountId: number, sessionIds: number[], urls: string[]): Promise<ArchivedFetch[]>;
}

interface Row {
  session_id: number;
  cycle: number;
  url: string;
  created: Date;
  piece: string | null;
  batch_warc: string | null;
}

@injectable()
export class CrawlArchiveService implements CrawlArchive {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
  ) {}

  async records(accountId: number, sessionIds: number[], urls: string[]): Promise<ArchivedFetch[]> {
    if (sessionIds.length === 0 || urls.length === 0) return [];
    const rows: Row[] = await this.db.query(
      `SELECT DISTINCT ON (i.url) i.session_id, i.cycle, i.url, i.created, i.warc AS piece, b.artifacts->>'pages_warc' AS batch_warc
       FROM crawl_items i
       JOIN crawl_sessions s ON s.id = i.session_id AND s.account_id = $1
       LEFT JOIN crawl_batches b ON b.session_id = i.session_id AND b.crawl_cycle = i.cycle
       WHERE i.session_id = ANY($2::int[]) AND i.url = ANY($3::text[]) AND i.kind <> 'robots'
       ORDER BY i.url, i.created DESC`,
      [accountId, sessionIds, urls],
    );
    // A finished crawl's pieces were gathered into its batch WARC (and deleted); a running one still has them.
    // One pass over each WARC file, whatever the number of URLs it holds.
    const byKey = new Map<string, Row[]>();
    for (const row of rows) {
      const key = row.batch_warc ?? row.piece;
      if (key) byKey.set(key, [...(byKey.get(key) ?? []), row]);
    }
    const out: ArchivedFetch[] = [];
    for (const [key, group] of byKey) {
      const found = await this.extract(key, new Set(group.map((r) => r.url)));
      for (const row of group) {
        const warc = found.get(row.url);
        if (warc) out.push({ url: row.url, sessionId: row.session_id, crawlCycle: row.cycle, fetchedAt: new Date(row.created), warc });
      }
    }
    return out;
  }

  /** For each of `urls` in a .warc.gz blob, the gzip members of its last request and response records. */
  private async extract(key: string, urls: Set<string>): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    // A WARC the crawl recorded and the store lost is a fault to see (the pack build fails and is
    // retried), never a pack silently without the crawl's records.
    const opened = await this.blobs.open(key);
    if (!opened) throw new BlobMissingError(key);
    const ranges = new Map<string, { start: number; end: number }[]>();
    const parser = new WARCParser(opened.stream);
    try {
      for await (const record of parser) {
        await record.skipFully();
        const type = record.warcType;
        const url = record.warcTargetURI;
        if ((type === 'request' || type === 'response') && url && urls.has(url)) {
          // A later exchange of the URL (a retry after a restart) replaces an earlier one.
          const list = type === 'request' ? [] : (ranges.get(url) ?? []);
          list.push({ start: parser.offset, end: parser.offset + parser.recordLength - 1 });
          ranges.set(url, list);
        }
      }
    } finally {
      opened.stream.destroy();
    }
    for (const [url, list] of ranges) {
      const parts: Buffer[] = [];
      for (const range of list) {
        const part = await this.blobs.open(key, () => range);
        if (!part) throw new BlobMissingError(key);
        const chunks: Buffer[] = [];
        for await (const chunk of part.stream) chunks.push(chunk as Buffer);
        parts.push(Buffer.concat(chunks));
      }
      out.set(url, Buffer.concat(parts));
    }
    return out;
  }
}
