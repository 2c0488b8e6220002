export { createApp, type AppOptions, type FiligraneApp } from './app.js';
export { loadConfig, type GatewayConfig } from './config.js';
export { defaultPlugins } from './plugins.js';
export { startTestServer, type TestServer } from './testing.js';
export { boot } from './server.js';
