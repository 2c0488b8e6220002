// @filigrane/server: the server core. It assembles a Filigrane app from a list of plugins (one
// container, one DataSource and its migrations, the REST adapter, the GraphQL schema, the job
// runner, the event outbox, config) and knows no first-party plugin: the gateway composes it with
// those (gateway/src/plugins.ts), the test kit with only the plugins under test.
export { createApp, checkBoot, parseAllSettings, type AppOptions, type FiligraneApp } from './app.js';
export { CHECKOUT, loadConfig, masterKeySource, parseTrustProxy, GATEWAY_SETTINGS, type GatewayConfig } from './config.js';
export { MasterKeyError, type MasterKeySource } from './master-key/master-key.js';
export { openDatabase, type Database } from './database.js';
export { processLogger } from './process-logger.js';
export { configuredPlugins, pluginsExportedBy } from './plugin-host/configured-plugins.js';
export { bootTestServer, call, drainJobsAndEvents, type BootedTestServer, type BootTestServerOptions, type CallOptions, type CallResult } from './testing.js';
export { mountedRoutes, type MountedHttpRoute } from './http-server.js';
export { buildGraphQLSchema } from './graphql/graphql.js';
export { buildOpenApi, openApiPath, type OpenApiDocument } from './openapi/openapi-document.js';
export { JobRunner, selectQueues, queuePattern } from './jobs/job-runner.js';
export { Metrics } from './metrics/metrics.js';
