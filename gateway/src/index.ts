// @filigrane/gateway: the service as `filigrane start` runs it, the server core (@filigrane/server)
// composed with the first-party plugins, the console and the CLI.
import * as server from '@filigrane/server';

export { settingsDocument } from './settings-document.js';
export { defaultPlugins, firstPartyPlugins, pluginsFromConfig } from './plugins.js';
export { consolePlugin } from './console/console.plugin.js';
export { boot } from './server.js';

// The server core's names, held here before they moved to @filigrane/server: kept for code written
// against the gateway (an outside plugin's tests may call configuredPlugins or call).
/** @deprecated import it from @filigrane/server */
export const createApp = server.createApp;
/** @deprecated import it from @filigrane/server */
export const checkBoot = server.checkBoot;
/** @deprecated import it from @filigrane/server */
export const loadConfig = server.loadConfig;
/** @deprecated import it from @filigrane/server */
export const masterKeySource = server.masterKeySource;
/** @deprecated import it from @filigrane/server */
export const parseTrustProxy = server.parseTrustProxy;
/** @deprecated import it from @filigrane/server */
export const GATEWAY_SETTINGS = server.GATEWAY_SETTINGS;
/** @deprecated import it from @filigrane/server */
export const MasterKeyError = server.MasterKeyError;
/** @deprecated import it from @filigrane/server */
export type MasterKeyError = server.MasterKeyError;
/** @deprecated import it from @filigrane/server */
export const configuredPlugins = server.configuredPlugins;
/** @deprecated import it from @filigrane/server (or use @filigrane/testing) */
export const bootTestServer = server.bootTestServer;
/** @deprecated import it from @filigrane/server (or @filigrane/testing) */
export const call = server.call;
/** @deprecated import it from @filigrane/server */
export const drainJobsAndEvents = server.drainJobsAndEvents;
/** @deprecated import it from @filigrane/server */
export const mountedRoutes = server.mountedRoutes;
/** @deprecated import it from @filigrane/server */
export const buildOpenApi = server.buildOpenApi;
/** @deprecated import it from @filigrane/server */
export const openApiPath = server.openApiPath;
/** @deprecated import it from @filigrane/server */
export const selectQueues = server.selectQueues;
/** @deprecated import it from @filigrane/server */
export const queuePattern = server.queuePattern;
/** @deprecated import it from @filigrane/server */
export const Metrics = server.Metrics;
/** @deprecated import it from @filigrane/server */
export type Metrics = server.Metrics;
/** @deprecated import it from @filigrane/server */
export type AppOptions = server.AppOptions;
/** @deprecated import it from @filigrane/server */
export type FiligraneApp = server.FiligraneApp;
/** @deprecated import it from @filigrane/server */
export type GatewayConfig = server.GatewayConfig;
/** @deprecated import it from @filigrane/server */
export type MasterKeySource = server.MasterKeySource;
/** @deprecated import it from @filigrane/server */
export type BootedTestServer = server.BootedTestServer;
/** @deprecated import it from @filigrane/server */
export type BootTestServerOptions = server.BootTestServerOptions;
/** @deprecated import it from @filigrane/server */
export type CallOptions = server.CallOptions;
/** @deprecated import it from @filigrane/server */
export type CallResult = server.CallResult;
/** @deprecated import it from @filigrane/server */
export type MountedHttpRoute = server.MountedHttpRoute;
/** @deprecated import it from @filigrane/server */
export type OpenApiDocument = server.OpenApiDocument;
