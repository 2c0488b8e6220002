import type { Readable } from 'node:stream';

/**
 * Where files live (originals, thumbnails, registration files, watermarked outputs, crawl
 * artifacts). Keys are relative, slash-separated names that the service builds itself; the
 * filesystem default stores them under DATA_DIR/blobs, an S3-compatible store is the scale-out path.
 */
/** Inclusive byte offsets within a blob. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  put(key: string, data: Buffer): Promise<void>;
  /** Writes a large blob from a stream (crawl artifacts) without holding it in memory. */
  putStream(key: string, source: Readable): Promise<number>;
  /**
   * Opens a blob for streaming with its (whole) size; null when there is no such blob. `range` picks,
   * from that size, the inclusive byte offsets to stream (null: all); what it throws closes the blob.
   */
  open(key: string, range?: (size: number) => ByteRange | null): Promise<{ stream: Readable; size: number; range: ByteRange | null } | null>;
  /** null when there is no such blob. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  /** Deletes every blob whose key starts with `prefix/`. */
  deletePrefix(prefix: string): Promise<void>;
  /** Keys of the blobs under `prefix/`, in ascending (byte) order. */
  list(prefix: string): AsyncIterable<string>;
  /**
   * Checks at boot that the store can be used (an S3 bucket exists and the credentials are
   * accepted); throws a message for the operator otherwise. Optional: the filesystem needs none.
   */
  check?(): Promise<void>;
}

/**
 * A file the service stored is gone (deleted by hand, another process's disk, a store mixed up):
 * a server fault, never an empty answer. Routes answer 500 `file_missing`; jobs fail (or retry)
 * with it, and the key is logged, never shown to the client.
 */
export class BlobMissingError extends Error {
  readonly code = 'file_missing';
  constructor(readonly key: string) {
    super(`stored file missing: ${key}`);
    this.name = 'BlobMissingError';
  }
}

/**
 * The store itself failed (S3 unreachable, credentials refused, bucket gone): a server fault of its
 * own, 503 `blob_store_unavailable` on routes; the operation and the key are logged, never shown.
 */
export class BlobStoreUnavailableError extends Error {
  readonly code = 'blob_store_unavailable';
  constructor(
    readonly operation: string,
    readonly key: string,
    cause: unknown,
  ) {
    super(`file store ${operation} ${key} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'BlobStoreUnavailableError';
  }
}

/**
 * The file store was unreachable (BlobStoreUnavailableError), a fault that passes: a job handler
 * rethrows it, and the job runner retries the job once the store may be back. Also true of a
 * JobFailure whose last attempt met it (a final-failure hook tells its user so). Told by the code,
 * not the class, so that an error from a plugin holding its own copy of core is understood too.
 */
export function isBlobStoreOutage(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'blob_store_unavailable';
}

/** The blob's bytes, or BlobMissingError: for files the service stored itself and must have. */
export async function requireBlob(store: BlobStore, key: string): Promise<Buffer> {
  const data = await store.get(key);
  if (!data) throw new BlobMissingError(key);
  return data;
}

const KEY = /^[a-z0-9][a-z0-9_-]*(?:\/[a-z0-9][a-z0-9._-]*)*$/i;

/** Blob keys never come from users, but are checked anyway so none can leave the store's root. */
export function assertBlobKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part.startsWith('.'))) {
    throw new Error(`invalid blob key "${key}"`);
  }
}
