import { join } from 'node:path';
import type { BlobStore } from '@filigrane/core';
import { FsBlobStore } from './fs-blob-store.js';
import type * as S3 from './s3-blob-store.js';

export interface BlobStoreSettings {
  /** BLOB_STORE_URL: `s3://bucket/prefix`; unset: the filesystem under DATA_DIR/blobs. */
  url?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  dataDir: string;
}

/** The BlobStore a deployment configured. */
export function createBlobStore(s: BlobStoreSettings): BlobStore {
  if (!s.url) return new FsBlobStore(join(s.dataDir, 'blobs'));
  const { bucket, prefix } = parseBlobStoreUrl(s.url);
  // Loaded on demand: the AWS SDK costs about a second of start-up that the filesystem default does not need.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { S3BlobStore } = require('./s3-blob-store.js') as typeof S3;
  return new S3BlobStore({ bucket, prefix, endpoint: s.endpoint, forcePathStyle: s.forcePathStyle });
}

export function parseBlobStoreUrl(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`BLOB_STORE_URL must look like s3://bucket or s3://bucket/prefix, got "${url}"`);
  return { bucket: m[1]!, prefix: (m[2] ?? '').replace(/^\/+|\/+$/g, '') };
}
