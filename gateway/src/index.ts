export { createApp, checkBoot, type AppOptions, type FiligraneApp } from './app.js';
export { loadConfig, masterKeySource, parseTrustProxy, GATEWAY_SETTINGS, type GatewayConfig } from './config.js';
export { MasterKeyError, type MasterKeySource } from './master-key/master-key.js';
export { settingsDocument } from './settings-document.js';
export { defaultPlugins, configuredPlugins, pluginsFromConfig } from './plugins.js';
export { startTestServer, call, type TestServer, type TestServerOptions, type CallOptions, type CallResult } from './testing.js';
export { boot } from './server.js';
export { mountedRoutes, type MountedHttpRoute } from './http-server.js';
export { buildOpenApi, openApiPath, type OpenApiDocument } from './openapi/openapi-document.js';
