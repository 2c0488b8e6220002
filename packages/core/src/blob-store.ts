import type { Readable } from 'node:stream';

/**
 * Where files live (originals, thumbnails, registration files, watermarked outputs, crawl
 * artifacts). Keys are relative, slash-separated names that the service builds itself; the
 * filesystem default stores them under DATA_DIR/blobs, an S3-compatible store is the scale-out path.
 */
export interface BlobStore {
  put(key: string, data: Buffer): Promise<void>;
  /** Writes a large blob from a stream (crawl artifacts) without holding it in memory. */
  putStream(key: string, source: Readable): Promise<number>;
  /**
   * Opens a blob for streaming with its (whole) size; `range` (inclusive byte offsets) streams only
   * those bytes. null when there is no such blob.
   */
  open(key: string, range?: { start: number; end: number }): Promise<{ stream: Readable; size: number } | null>;
  /** null when there is no such blob. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  /** Deletes every blob whose key starts with `prefix/`. */
  deletePrefix(prefix: string): Promise<void>;
}

const KEY = /^[a-z0-9][a-z0-9_-]*(?:\/[a-z0-9][a-z0-9._-]*)*$/i;

/** Blob keys never come from users, but are checked anyway so none can leave the store's root. */
export function assertBlobKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part.startsWith('.'))) {
    throw new Error(`invalid blob key "${key}"`);
  }
}
