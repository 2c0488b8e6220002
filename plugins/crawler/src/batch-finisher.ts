import type { DataSource } from 'typeorm';
import type { BlobStore, EventPublisher } from '@filigrane/core';
import type { BatchWriter } from './batch-writer.service.js';
import { runPrefix, type RunState } from './crawl-run.js';
import type { CrawlerConfig } from './crawl-settings.js';

/** The end of a crawl: its one batch (written by whichever worker gets there first), the session's new state, the event (through the outbox). */
export class BatchFinisher {
  constructor(
    private readonly db: DataSource,
    private readonly blobs: BlobStore,
    private readonly writer: BatchWriter,
    private readonly events: EventPublisher,
    private readonly cfg: CrawlerConfig,
  ) {}

  /**
   * Writes the batch once (unique per session and crawl) and ends the crawl: done, or failed when no
   * page could be fetched. Returns what it ended with, or null when another worker wrote the batch first.
   */
  async finish(s: RunState, limit: string | null): Promise<{ state: 'done' | 'failed'; reason: string | null; batch: number } | null> {
    // A redirect is not a page: a crawl that met only redirects (off the site, in a loop) fetched
    // nothing, and its first row says where the start URL led. 304: a page known and unchanged.
    const fetched: { ok: number; first: string | null }[] = await this.db.query(
      `SELECT count(*) FILTER (WHERE status BETWEEN 200 AND 299 OR status = 304)::int AS ok,
              (SELECT outcome FROM crawl_items WHERE session_id = $1 AND cycle = $2 AND kind = 'page' ORDER BY id LIMIT 1) AS first
       FROM crawl_items WHERE session_id = $1 AND cycle = $2 AND kind = 'page'`,
      [s.id, s.cycle],
    );
    const failed = fetched[0]!.ok === 0;
    const reason = failed ? `no page could be fetched: ${fetched[0]!.first ?? 'no start URL'}` : limit;
    const keys = await this.writer.write(`${runPrefix(s)}/batch`, s.id, s.cycle);
    // The batch, the session's new state and the event commit together: the event exists if and
    // only if the batch does (the outbox delivers it after the commit, whatever happens to this worker).
    const batch = await this.db.transaction(async (m) => {
      const inserted: { id: number; ctime: Date }[] = await m.query(
        `INSERT INTO crawl_batches (session_id, account_id, crawl_cycle, images, videos, documents, pages, artifacts)
         SELECT $1, $2, $3,
           count(*) FILTER (WHERE kind = 'image'), count(*) FILTER (WHERE kind = 'video'),
           count(*) FILTER (WHERE kind = 'document'), count(*) FILTER (WHERE kind = 'page'), $4
         FROM crawl_items WHERE session_id = $1 AND cycle = $3
         ON CONFLICT (session_id, crawl_cycle) DO NOTHING RETURNING id, ctime`,
        [s.id, s.account_id, s.cycle, keys],
      );
      if (inserted.length === 0) return null; // another worker wrote it
      await m.query(
        `UPDATE crawl_sessions SET state = $3, cycle_count = $2, mtime = now(), reason = $4, deadline = NULL, remaining = NULL,
           next_crawl = now() + make_interval(hours => $5)
         WHERE id = $1 AND cycle = $2`,
        [s.id, s.cycle, failed ? 'failed' : 'done', reason, this.cfg.recrawlHours],
      );
      const created = inserted[0]!;
      const counts: { images: number; videos: number; documents: number; pages: number }[] = await m.query(
        'SELECT images, videos, documents, pages FROM crawl_batches WHERE id = $1',
        [created.id],
      );
      await this.events.enqueue(
        {
          type: 'crawl.batch.created',
          accountId: s.account_id,
          data: { session_id: s.id, batch_id: created.id, crawl_cycle: s.cycle, state: failed ? 'failed' : 'done', url: `/api/v3/crawling/batches/${created.id}/`, ...counts[0]! },
        },
        m,
        { key: `crawl:${s.id}` },
      );
      return created;
    });
    if (!batch) return null;
    await this.events.flush();
    // The per-fetch pieces now live in the batch's TAR and WARC.
    await this.blobs.deletePrefix(`${runPrefix(s)}/w`).catch(() => undefined);
    await this.blobs.deletePrefix(`${runPrefix(s)}/i`).catch(() => undefined);
    return { state: failed ? 'failed' : 'done', reason, batch: batch.id };
  }
}
