import { createGzip } from 'node:zlib';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { DataSource } from 'typeorm';
import { csvRecords, requireBlob, type BlobStore } from '@filigrane/core';
import { warcInfo } from './warc-writer.js';
import type { CrawlItemFields } from './crawl-writes.js';

/** Columns of each gzipped CSV log (documented in docs/api-decisions.md). */
export const LOG_COLUMNS = {
  page: ['url', 'status', 'content_type', 'bytes', 'title', 'outcome', 'fetched_at'],
  image: ['url', 'page_url', 'status', 'content_type', 'bytes', 'width', 'height', 'format', 'md5', 'credit', 'matches', 'watermarked', 'outcome', 'fetched_at'],
  video: ['url', 'page_url', 'outcome', 'fetched_at'],
  document: ['url', 'page_url', 'outcome', 'fetched_at'],
} as const;

export type ItemKind = keyof typeof LOG_COLUMNS;
export const ARTIFACT_FILES = {
  images_log: 'images.csv.gz',
  images_tar: 'images.tar',
  videos_log: 'videos.csv.gz',
  documents_log: 'documents.csv.gz',
  pages_log: 'pages.csv.gz',
  pages_warc: 'pages.warc.gz',
} as const;
export type ArtifactName = keyof typeof ARTIFACT_FILES;

interface ItemRow extends CrawlItemFields {
  id: string;
  kind: ItemKind;
  /** bigint: text from the driver. */
  bytes: string | null;
  created: Date;
}

/** Safe TAR member name: the item id, then the file's base name reduced to [A-Za-z0-9._-]. */
export function tarMemberName(id: string, url: string): string {
  let base = 'image';
  try {
    base = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'image';
  } catch {
    // an undecodable name falls back to "image"
  }
  base = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[.]+/, '').slice(0, 100) || 'image';
  return `${id.padStart(8, '0')}-${base}`;
}

/**
 * One gzipped CSV log of a crawl: the kind's columns, one line per item. Titles and credits are
 * third-party text: the cells follow core's csvLine rule (formulas neutralised) like every CSV.
 */
export function crawlLog(kind: ItemKind, items: AsyncIterable<object & { created: Date }>): Readable {
  const columns = LOG_COLUMNS[kind] as readonly string[];
  const rows = (async function* () {
    for await (const item of items) {
      const record: Record<string, unknown> = { ...item, fetched_at: item.created.toISOString() };
      yield columns.map((c) => record[c]);
    }
  })();
  return Readable.from(csvRecords(columns, rows, '\n')).pipe(createGzip());
}

/**
 * Writes a finished crawl's artifacts from its items, streaming: rows are read from PostgreSQL a
 * thousand at a time, images and WARC records one blob at a time, into gzip/tar and the BlobStore.
 */
export class BatchWriter {
  constructor(
    private readonly db: DataSource,
    private readonly blobs: BlobStore,
  ) {}

  private async *items(sessionId: number, cycle: number, kinds: (ItemKind | 'robots')[]): AsyncGenerator<ItemRow> {
    let last = '0';
    for (;;) {
      const rows: ItemRow[] = await this.db.query(
        `SELECT * FROM crawl_items WHERE session_id = $1 AND cycle = $2 AND kind = ANY($3) AND id > $4 ORDER BY id LIMIT 1000`,
        [sessionId, cycle, kinds, last],
      );
      if (rows.length === 0) return;
      for (const r of rows) yield r;
      last = rows[rows.length - 1]!.id;
    }
  }

  private csv(sessionId: number, cycle: number, kind: ItemKind): Readable {
    return crawlLog(kind, this.items(sessionId, cycle, [kind]));
  }

  private tarOfImages(sessionId: number, cycle: number): Readable {
    const pack = tar.pack();
    void (async () => {
      try {
        for await (const r of this.items(sessionId, cycle, ['image'])) {
          if (!r.blob) continue;
          const data = await requireBlob(this.blobs, r.blob); // a batch never lacks a piece
          await new Promise<void>((resolve, reject) =>
            pack.entry({ name: tarMemberName(r.id, r.url), size: data.length, mtime: r.created }, data, (err) => (err ? reject(err) : resolve())),
          );
        }
        pack.finalize();
      } catch (err) {
        pack.destroy(err as Error);
      }
    })();
    return pack as unknown as Readable;
  }

  private warc(sessionId: number, cycle: number, filename: string): Readable {
    return Readable.from(
      (async function* (self: BatchWriter) {
        yield await warcInfo(filename, new Date(), { software: 'Filigrane crawler', format: 'WARC File Format 1.1', isPartOf: `session-${sessionId}-crawl-${cycle}` });
        // Each piece holds the records of several fetches (written together): each piece once.
        const written = new Set<string>();
        for await (const r of self.items(sessionId, cycle, ['robots', 'page', 'image'])) {
          if (!r.warc || written.has(r.warc)) continue;
          written.add(r.warc);
          yield await requireBlob(self.blobs, r.warc); // gzip members concatenate into one valid .warc.gz
        }
      })(this),
    );
  }

  /** Writes every artifact of the crawl under `prefix`; returns artifact name -> blob key. */
  async write(prefix: string, sessionId: number, cycle: number): Promise<Record<ArtifactName, string>> {
    const keys = Object.fromEntries(Object.entries(ARTIFACT_FILES).map(([name, file]) => [name, `${prefix}/${file}`])) as Record<ArtifactName, string>;
    await this.blobs.putStream(keys.images_log, this.csv(sessionId, cycle, 'image'));
    await this.blobs.putStream(keys.videos_log, this.csv(sessionId, cycle, 'video'));
    await this.blobs.putStream(keys.documents_log, this.csv(sessionId, cycle, 'document'));
    await this.blobs.putStream(keys.pages_log, this.csv(sessionId, cycle, 'page'));
    await this.blobs.putStream(keys.images_tar, this.tarOfImages(sessionId, cycle));
    await this.blobs.putStream(keys.pages_warc, this.warc(sessionId, cycle, ARTIFACT_FILES.pages_warc));
    return keys;
  }
}
