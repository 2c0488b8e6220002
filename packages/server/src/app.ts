import 'reflect-metadata';
import type { ApolloServer } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import {
  ACCOUNT_DELETED_HOOKS,
  GRAPHQL_SCHEMA_HOOKS,
  CORE_SETTINGS,
  EVENT_LISTENERS,
  WEBHOOK_EVENT_TYPES,
  FILE_URL_SIGNER,
  LIVE_EVENTS,
  loggerFactory,
  parseSettings,
  ExtensionRegistry,
  resolvePlugins,
  SecretBox,
  systemClock,
  TOKENS,
  WorkPool,
  type Clock,
  type FiligranePlugin,
  type GraphQLContext,
  type LoggerFactory,
  type PluginContext,
  type Authenticator,
  type SessionAuthenticator,
} from '@filigrane/core';
import { RequestAuthentication } from './auth/request-authentication.js';
import { browserPlugin } from './browser/browser.plugin.js';
import { FILE_URLS, FileUrls } from './browser/file-urls.js';
import { filePathMatcher, HmacFileUrlSigner, isFileRoute } from './browser/signed-urls.js';
import { OutboxTail } from './events/outbox-tail.js';
import { fullPaths } from './rest/rest-adapter.js';
import { TrustedDocuments } from './graphql/trusted-documents.js';
import { createBlobStore, createDataSource } from '@filigrane/db';
import type { GatewayConfig } from './config.js';
import { mountGraphQL } from './graphql/graphql.js';
import { docsPlugin } from './openapi/docs.plugin.js';
import { baseUrlResolver, createHttpServer } from './http-server.js';
import { JobRunner } from './jobs/job-runner.js';
import { Metrics } from './metrics/metrics.js';
import { pinoLoggerFactory } from './process-logger.js';
import type { Logger } from 'pino';
import { masterKeyPlugin } from './master-key/master-key.plugin.js';
import { eventOutboxPlugin } from './events/event-outbox.plugin.js';
import { jobSchedulesPlugin } from './jobs/job-schedules.plugin.js';
import { OutboxEventBus } from './events/outbox-event-bus.js';
import { settleMasterKey, type MasterKeySource } from './master-key/master-key.js';
import { rateLimitPlugin } from './rate-limit/rate-limit.plugin.js';
import { mountRestRoutes } from './rest/rest-adapter.js';
import { bindPlatformServices } from './platform/platform-services.js';

export interface AppOptions {
  config: GatewayConfig;
  plugins: FiligranePlugin[];
  databaseUrl: string;
  /** The master key, or the key file to read (created only for an empty database). */
  masterKey: MasterKeySource;
  clock?: Clock;
  /** Run job workers and schedules in this process. */
  workers?: boolean;
  /** With workers: only the queues these patterns name (`crawler.*`); unset: every queue. */
  queues?: string[];
  /** The process log (`filigrane start` and `worker`): each job's start, end and failure, and plugins' loggers. */
  jobLogger?: Logger;
  /** Serve HTTP (false for `filigrane worker`). */
  http?: boolean;
  /** Check the blob store before anything else (`start`, `worker`): a missing bucket or refused credentials stop the boot. */
  checkBlobStore?: boolean;
  logger?: boolean;
  log?: (message: string) => void;
}

export interface FiligraneApp {
  container: Container;
  dataSource: DataSource;
  http: FastifyInstance | null;
  /** Every route mounted on `http` (method and Fastify path), plugins' and the gateway's own. */
  routes: { method: string; url: string }[];
  jobs: JobRunner;
  metrics: Metrics;
  plugins: FiligranePlugin[];
  /** Starts listening; returns the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Typed settings of the platform and every plugin, parsed once: a bad value stops the boot naming
 * its plugin and variable. Test overrides still given through the deprecated `extra` bag count.
 */
export function parseAllSettings(plugins: FiligranePlugin[], config: GatewayConfig): Map<symbol, unknown> {
  const env = { ...config.env, ...config.extra };
  const parsed = new Map<symbol, unknown>();
  for (const decl of [CORE_SETTINGS, ...plugins.flatMap((p) => (p.settings ? [p.settings] : []))]) parsed.set(decl.token, parseSettings(decl, env));
  return parsed;
}

/** What can be checked before touching a database: the plugin set and every setting. */
export function checkBoot(plugins: FiligranePlugin[], config: GatewayConfig): void {
  parseAllSettings(resolvePlugins([rateLimitPlugin, ...plugins]), config);
}

/** Boots Filigrane: one container, one DataSource, one REST surface, one GraphQL schema, one job runner. */
export async function createApp(options: AppOptions): Promise<FiligraneApp> {
  const log = options.log ?? ((m: string) => console.log(m));
  // The docs plugin describes every loaded plugin, itself included.
  const plugins: FiligranePlugin[] = resolvePlugins([rateLimitPlugin, masterKeyPlugin, eventOutboxPlugin, jobSchedulesPlugin, browserPlugin, docsPlugin(() => plugins, options.config.toolVersion), ...options.plugins]);

  const container = new Container({ autobind: true, defaultScope: 'Singleton' });
  const extensions = new ExtensionRegistry();
  const loggers = options.jobLogger ? pinoLoggerFactory(options.jobLogger) : loggerFactory(log);
  let db: DataSource | null = null;
  const metrics = new Metrics(() => db);
  const jobs = new JobRunner(options.databaseUrl, log, loggers, options.jobLogger, metrics, () => (options.clock ?? systemClock).now());
  if (options.config.jobLeaseSeconds) jobs.leaseSeconds = options.config.jobLeaseSeconds;
  if (options.config.jobStoreRetries !== undefined) jobs.storeRetries = options.config.jobStoreRetries;
  if (options.config.jobStoreRetrySeconds) jobs.storeRetrySeconds = options.config.jobStoreRetrySeconds;
  container.bind(TOKENS.Config).toConstantValue(options.config);
  container.bind(TOKENS.Clock).toConstantValue(options.clock ?? systemClock);
  container.bind(TOKENS.WorkPool).toConstantValue(new WorkPool());
  container.bind(TOKENS.Extensions).toConstantValue(extensions);
  container.bind(TOKENS.Loggers).toConstantValue(loggers);
  bindPlatformServices(container, extensions);
  container.bind(TOKENS.JobQueue).toConstantValue(jobs);
  // The DataSource is created below; the bus reads it only when it delivers.
  container.bind(TOKENS.Events).toConstantValue(new OutboxEventBus(extensions, jobs, () => db!, log, () => (options.clock ?? systemClock).now()));
  container.bind(LIVE_EVENTS).toConstantValue(new OutboxTail(() => db!, log));
  for (const [token, values] of parseAllSettings(plugins, options.config)) container.bind(token).toConstantValue(values);
  const blobs = createBlobStore({ url: options.config.blobStoreUrl, endpoint: options.config.s3Endpoint, forcePathStyle: options.config.s3ForcePathStyle, dataDir: options.config.dataDir });
  // Said at boot rather than as a file missing on every request (a wrong bucket answers 404 to every key).
  if (options.checkBlobStore) await blobs.check?.();
  container.bind(TOKENS.BlobStore).toConstantValue(blobs);

  const dataSource = createDataSource({
    url: options.databaseUrl,
    entities: plugins.flatMap((p) => p.entities ?? []),
    migrations: plugins.flatMap((p) => p.migrations ?? []),
  });
  await dataSource.initialize();
  db = dataSource;
  try {
    return await assemble(options, plugins, container, dataSource, extensions, jobs, metrics, log);
  } catch (err) {
    await jobs.stop().catch(() => undefined);
    await dataSource.destroy();
    throw err;
  }
}

async function assemble(
  options: AppOptions,
  plugins: FiligranePlugin[],
  container: Container,
  dataSource: DataSource,
  extensions: ExtensionRegistry,
  jobs: JobRunner,
  metrics: Metrics,
  log: (message: string) => void,
): Promise<FiligraneApp> {
  await migrateOnce(dataSource);
  container.bind(TOKENS.DataSource).toConstantValue(dataSource);
  const masterKey = await settleMasterKey(dataSource, options.masterKey);
  container.bind(TOKENS.SecretBox).toConstantValue(new SecretBox(masterKey));
  container.bind(TOKENS.Secrets).toService(TOKENS.SecretBox);
  const signer = new HmacFileUrlSigner(masterKey, options.config.signedUrlSeconds, options.clock ?? systemClock);
  container.bind(FILE_URL_SIGNER).toConstantValue(signer);
  const filePaths = plugins.flatMap((p) => (p.routes ?? []).filter(isFileRoute).flatMap((r) => fullPaths(r).map((f) => f.path)));
  container.bind(FILE_URLS).toConstantValue(new FileUrls(signer, filePathMatcher(filePaths)));
  const trusted = options.config.graphqlTrustedDocuments ? TrustedDocuments.load(options.config.graphqlTrustedDocuments) : null;

  extensions.declare(EVENT_LISTENERS, 'core');
  extensions.declare(WEBHOOK_EVENT_TYPES, 'core');
  extensions.declare(ACCOUNT_DELETED_HOOKS, 'core');
  extensions.declare(GRAPHQL_SCHEMA_HOOKS, 'core');
  for (const p of plugins) {
    for (const point of p.extensionPoints ?? []) extensions.declare(point, p.id);
    if (p.bindings) await container.load(p.bindings);
  }
  for (const p of plugins) for (const c of p.contributions ?? []) extensions.contribute(c.point, c.create(container), p.id);
  // Events handed to listeners directly (`publish`, not the outbox) reach this process's subscriptions too.
  const tail = container.get<OutboxTail>(LIVE_EVENTS);
  extensions.contribute(EVENT_LISTENERS, (event) => (event.id === undefined ? tail.inject(event) : undefined), browserPlugin.id);
  const orphans = extensions.undeclaredContributions();
  if (orphans.length) throw new Error(`contributions to extension points no loaded plugin declares: ${orphans.join(', ')}`);

  let http: FastifyInstance | null = null;
  const routes: { method: string; url: string }[] = [];
  let apollo: ApolloServer<GraphQLContext> | null = null;
  if (options.http !== false) {
    const authentication = new RequestAuthentication(
      container.get<Authenticator>(TOKENS.Authenticator),
      container.isBound(TOKENS.Sessions) ? container.get<SessionAuthenticator>(TOKENS.Sessions) : null,
      signer,
    );
    const server = await createHttpServer(options.config, container, options.logger ?? false, authentication);
    http = server.app;
    metrics.instrument(http);
    metrics.mount(http, options.config.metricsToken);
    http.addHook('onRoute', (r) => {
      // REST paths answer every method (405 for the undeclared ones): list the declared ones.
      const declared = (r.config as { declaredMethods?: string[] } | undefined)?.declaredMethods;
      for (const method of declared ?? [r.method].flat()) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, url: r.url });
    });
    const baseUrlOf = baseUrlResolver(options.config);
    mountRestRoutes(http, container, plugins, baseUrlOf, options.config.bodyLimitBytes);
    apollo = await mountGraphQL(http, plugins, container, baseUrlOf, { authentication, originAllowed: server.originAllowed, fileUrls: container.get<FileUrls>(FILE_URLS), trusted });
  }

  const specs = plugins.flatMap((p) => p.jobs?.(container) ?? []);
  // Every process sends jobs: each must know which queues have a final-failure hook.
  jobs.declare(specs);
  if (options.workers) await jobs.work(specs, options.queues);

  const loggers = container.get<LoggerFactory>(TOKENS.Loggers);
  const contextOf = (p: FiligranePlugin): PluginContext => ({ container, log, logger: loggers.for(p.id) });
  for (const p of plugins) await p.onStart?.(contextOf(p));

  return {
    container,
    dataSource,
    http,
    routes,
    jobs,
    metrics,
    plugins,
    async listen(port = options.config.port, host = options.config.host) {
      if (!http) throw new Error('this process serves no HTTP');
      const address = await http.listen({ port, host });
      return options.config.publicUrl ?? address.replace('[::1]', 'localhost');
    },
    async close() {
      for (const p of [...plugins].reverse()) await p.onStop?.(contextOf(p));
      container.get<OutboxEventBus>(TOKENS.Events).close();
      container.get<OutboxTail>(LIVE_EVENTS).close();
      if (http) await http.close();
      if (apollo) await apollo.stop();
      await jobs.stop();
      await dataSource.destroy();
    },
  };
}

/** Any constant: the advisory lock key under which one process at a time migrates the database. */
const MIGRATION_LOCK = 0x46494c49;

/**
 * Processes booting together after an upgrade (every replica and worker restarted at once) ran the
 * same migrations concurrently and one failed on PostgreSQL's catalog ("duplicate key value violates
 * unique constraint pg_type_typname_nsp_index"): one at a time, the others then find nothing pending.
 */
async function migrateOnce(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
