import 'reflect-metadata';

export * from './errors.js';
export * from './clock.js';
export * from './config.js';
export * from './tokens.js';
export * from './secret-box.js';
export * from './jobs.js';
export * from './extension-point.js';
export * from './request-context.js';
export * from './route.js';
export * from './plugin.js';
export * from './plugin-loader.js';
export * from './pagination.js';
export * from './filters.js';
export * from './csv.js';
export * from './blob-store.js';
export * from './tracking.js';
export * from './graphql-context.js';
