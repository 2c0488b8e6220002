export * from './data-dir-lock.js';
export * from './embedded-postgres.js';
export * from './data-source.js';
export * from './test-database.js';
export * from './fs-blob-store.js';
export type { S3BlobStore, S3BlobStoreOptions } from './s3-blob-store.js';
export * from './blob-store-config.js';
export * from './test-s3-server.js';
