// @filigrane/gateway: the service as `filigrane start` runs it, the server core (@filigrane/server)
// composed with the first-party plugins, the console and the CLI. The server core's names are
// re-exported here for code written before it moved (deprecated: import them from @filigrane/server).
export {
  /** @deprecated import from @filigrane/server */ createApp,
  /** @deprecated import from @filigrane/server */ checkBoot,
  /** @deprecated import from @filigrane/server */ loadConfig,
  /** @deprecated import from @filigrane/server */ masterKeySource,
  /** @deprecated import from @filigrane/server */ parseTrustProxy,
  /** @deprecated import from @filigrane/server */ GATEWAY_SETTINGS,
  /** @deprecated import from @filigrane/server */ MasterKeyError,
  /** @deprecated import from @filigrane/server */ configuredPlugins,
  /** @deprecated import from @filigrane/server */ bootTestServer,
  /** @deprecated import from @filigrane/server */ call,
  /** @deprecated import from @filigrane/server */ drainJobsAndEvents,
  /** @deprecated import from @filigrane/server */ mountedRoutes,
  /** @deprecated import from @filigrane/server */ buildOpenApi,
  /** @deprecated import from @filigrane/server */ openApiPath,
  /** @deprecated import from @filigrane/server */ selectQueues,
  /** @deprecated import from @filigrane/server */ queuePattern,
  /** @deprecated import from @filigrane/server */ Metrics,
  type AppOptions,
  type FiligraneApp,
  type GatewayConfig,
  type MasterKeySource,
  type BootedTestServer,
  type BootTestServerOptions,
  type CallOptions,
  type CallResult,
  type MountedHttpRoute,
  type OpenApiDocument,
} from '@filigrane/server';
export { settingsDocument } from './settings-document.js';
export { defaultPlugins, firstPartyPlugins, pluginsFromConfig } from './plugins.js';
export { consolePlugin } from './console/console.plugin.js';
export { boot } from './server.js';
