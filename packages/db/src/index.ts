export * from './data-dir-lock.js';
export * from './embedded-postgres.js';
export * from './data-source.js';
export * from './test-database.js';
export * from './fs-blob-store.js';
