export { createApp, type AppOptions, type FiligraneApp } from './app.js';
export { loadConfig, masterKeySource, type GatewayConfig } from './config.js';
export { MasterKeyError, type MasterKeySource } from './master-key/master-key.js';
export { defaultPlugins } from './plugins.js';
export { startTestServer, call, type TestServer, type CallOptions, type CallResult } from './testing.js';
export { boot } from './server.js';
