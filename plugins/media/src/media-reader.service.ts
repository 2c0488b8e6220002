import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { requireBlob, TOKENS, type BlobStore, type MediaKeyReference, type MediaReader, type MediaRecord, type ReducedOriginalPixels, type SecretBox } from '@filigrane/core';
import { blobKeys } from './media.service.js';
import { decodeReduced } from './reduced-image.js';

/** The columns others may see: never the sealed key, the embedding parameters or the tree's internals. */
const COLUMNS = `id, account_id, path, name, type, created, disk_usage, metadata, exclusive, kind, width, height, format, credit,
  duration, processing, processing_error, pixel_hash`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function record(m: any): MediaRecord {
  return {
    id: Number(m.id), accountId: m.account_id, path: m.path, name: m.name, type: m.type, created: m.created, diskUsage: Number(m.disk_usage),
    metadata: m.metadata, exclusive: m.exclusive, kind: m.kind, width: m.width, height: m.height, format: m.format, credit: m.credit,
    duration: m.duration, processing: m.processing, processingError: m.processing_error, pixelHash: m.pixel_hash,
  };
}

/** The read-only media interface (TOKENS.MediaReader): the one way other plugins read media. */
@injectable()
export class MediaReaderService implements MediaReader {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.SecretBox) private readonly box: SecretBox,
  ) {}

  async byIds(ids: number[], accountId?: number): Promise<MediaRecord[]> {
    if (ids.length === 0) return [];
    const rows = accountId === undefined
      ? await this.db.query(`SELECT ${COLUMNS} FROM media WHERE id = ANY($1)`, [ids])
      : await this.db.query(`SELECT ${COLUMNS} FROM media WHERE id = ANY($1) AND account_id = $2`, [ids, accountId]);
    return rows.map(record);
  }

  async byPixelHash(accountId: number, hashes: Buffer[], limit: number): Promise<MediaRecord[]> {
    if (hashes.length === 0) return [];
    const rows = await this.db.query(`SELECT ${COLUMNS} FROM media WHERE account_id = $1 AND pixel_hash = ANY($2) ORDER BY id LIMIT $3`, [accountId, hashes, limit]);
    return rows.map(record);
  }

  async reducedOriginal(mediaId: number): Promise<ReducedOriginalPixels> {
    // Kept for every registered image: a missing file is a server fault (BlobMissingError), never skipped.
    return decodeReduced(await requireBlob(this.blobs, blobKeys(mediaId).reduced));
  }

  async keyReference(mediaId: number): Promise<MediaKeyReference | null> {
    const rows: { sealed_key: string | null; params: Record<string, number> | null; kind: string | null }[] = await this.db.query(
      'SELECT sealed_key, params, kind FROM media WHERE id = $1',
      [mediaId],
    );
    const row = rows[0];
    if (!row || row.kind !== 'watermarked' || !row.sealed_key || !row.params) return null;
    return { key: this.box.open(row.sealed_key), params: row.params };
  }

  async thumbnail(mediaId: number): Promise<Buffer> {
    return requireBlob(this.blobs, blobKeys(mediaId).thumbnail);
  }

  async credits(accountId: number): Promise<string[]> {
    const rows: { credit: string }[] = await this.db.query(
      `SELECT DISTINCT credit FROM media WHERE account_id = $1 AND credit IS NOT NULL AND credit <> ''`,
      [accountId],
    );
    return rows.map((r) => r.credit);
  }
}
