import { randomBytes } from 'node:crypto';
import { ApiError } from '@filigrane/core';
import { IdentityService, PasswordService } from '@filigrane/plugin-auth';
import { AccountService } from '@filigrane/plugin-account';
import { checkBoot, createApp, loadConfig, masterKeySource, openDatabase, processLogger, type Database, type FiligraneApp, type GatewayConfig } from '@filigrane/server';
import { pluginsFromConfig } from './plugins.js';

export interface Running {
  app: FiligraneApp;
  db: Database;
  url: string | null;
  stop(): Promise<void>;
}

export interface BootOptions {
  /** `start --no-workers`: the API alone. */
  workers?: boolean;
  /** `worker --queues`: these queue patterns only. */
  queues?: string[];
}

/** Boots the service from the environment: API + workers (`start`), or workers alone (`worker`). */
export async function boot(mode: 'start' | 'worker' | 'migrate', config: GatewayConfig = loadConfig(), roles: BootOptions = {}): Promise<Running> {
  if (mode === 'worker' && !config.databaseUrl) {
    throw new Error('`filigrane worker` shares the API\'s database: set DATABASE_URL to the PostgreSQL that `filigrane start` uses.');
  }
  if (mode === 'start' && roles.workers === false && !config.databaseUrl) {
    // No worker can ever join the embedded database (one process): the jobs would wait for ever.
    throw new Error('`filigrane start --no-workers` leaves every job (watermarkings, asynchronous searches, crawls...) to `filigrane worker` processes, which share the database: set DATABASE_URL, or run `filigrane start` without --no-workers on the embedded database.');
  }
  const plugins = await pluginsFromConfig(config.env);
  checkBoot(plugins, config);
  // Operator commands (migrate mode) reach a running server's embedded database instead of opening it.
  const db = await openDatabase(config, { attach: mode === 'migrate' });
  let app: FiligraneApp;
  try {
    app = await createApp({
      config,
      plugins,
      databaseUrl: db.url,
      masterKey: masterKeySource(config),
      workers: mode !== 'migrate' && roles.workers !== false,
      queues: roles.queues,
      jobLogger: mode === 'migrate' ? undefined : processLogger(config.logLevel, mode),
      // Operator commands print their result on stdout (`--json` included): the service's lines go to stderr.
      log: mode === 'migrate' ? (line: string) => console.error(line) : undefined,
      http: mode === 'start',
      checkBlobStore: mode !== 'migrate',
      logger: mode === 'start' && config.logLevel !== 'silent',
    });
  } catch (err) {
    await db.stop();
    throw err;
  }
  const url = mode === 'start' ? await app.listen() : null;
  // A worker serves no API: its job metrics get a port of their own (PORT), when asked for.
  const metrics = mode === 'worker' && config.metricsToken ? await app.metrics.serve(config.metricsToken, config.host, config.port) : null;
  if (metrics) console.log(`Worker metrics on ${metrics.url}`);
  return {
    app,
    db,
    url,
    async stop() {
      await metrics?.close();
      await app.close();
      await db.stop();
    },
  };
}

/**
 * On a first start with an empty database, a `demo` account so the service can be tried at once:
 * its API key and a generated console password (printed once, stored hashed).
 */
export async function ensureDemoAccount(app: FiligraneApp): Promise<{ apiKey: string; password: string } | null> {
  if ((await app.container.get(IdentityService).count()) > 0) return null;
  let created;
  try {
    created = await app.container.get(AccountService).create({ username: 'demo', email: 'demo@example.com', fullName: 'Demo account' });
  } catch (err) {
    // Replicas started together on a new database: the one that created it first prints the key.
    if (err instanceof ApiError && (await app.container.get(IdentityService).count()) > 0) return null;
    throw err;
  }
  const { account, apiKey } = created;
  const password = randomBytes(12).toString('base64url');
  await app.container.get(PasswordService).set(account.id, password);
  return { apiKey, password };
}
