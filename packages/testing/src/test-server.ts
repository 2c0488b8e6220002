import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPlugin, ManualClock, TOKENS, type AccountProvisioner, type AccountQuotas, type Clock, type FiligranePlugin } from '@filigrane/core';
import { createTestDatabase } from '@filigrane/db';
import { bootTestServer, call, drainJobsAndEvents, pluginsExportedBy, type CallOptions, type CallResult, type FiligraneApp, type GatewayConfig } from '@filigrane/server';
import { serveSite, type SitePage, type TestSite } from './test-site.js';
import { connect, settle, subscribe, type TestSubscription } from './graphql-subscriptions.js';

/**
 * A plugin for the test server: the plugin object; a plugin module, or its import
 * (`import('@filigrane/plugin-search')`), as Backstage's test backend takes `features`; or the id
 * of an installed first-party plugin (`'search'`: the package `@filigrane/plugin-search`).
 */
export type TestPlugin = FiligranePlugin | string | Record<string, unknown> | Promise<unknown>;

export interface TestServerOptions {
  /**
   * The plugins under test (see TestPlugin). The server loads these, identity (`auth` and
   * `account`: every authenticated route and `createAccount` need them) and whatever they
   * `require`; nothing else. A requirement not given here is loaded from its installed package
   * (`@filigrane/plugin-<id>`): install those as devDependencies, or pass the plugin.
   */
  plugins: TestPlugin[];
  /** `true` (or a start date): a ManualClock the test moves with `server.clock.advance(ms)`. Default: the system clock. */
  clock?: Clock | boolean | Date;
  /** Environment on top of the process's: plugin settings. FETCH_ALLOW_HOSTS defaults to 127.0.0.1 (test sites). */
  env?: Record<string, string>;
  /** Run job workers and schedules in the server (default true); `drainJobs()` waits for them. */
  workers?: boolean;
  config?: Partial<GatewayConfig>;
  /** Reuse this database (a restart); otherwise each server gets a fresh one. */
  databaseUrl?: string;
  masterKey?: Buffer;
  /** Server log lines (default: dropped). */
  log?: (line: string) => void;
}

export interface TestAccount {
  id: number;
  username: string;
  apiKey: string;
  /** An HTTP call with this account's API key. */
  call(method: string, path: string, options?: Omit<CallOptions, 'key'>): Promise<CallResult>;
  /**
   * A GraphQL subscription over a real graphql-ws connection with this account's key, resolved once the
   * server reads the outbox for it: `const sub = await alice.subscribe('subscription { feedChecked { feedId } }')`,
   * then the action, then `await sub.next(1)`. Closed with the server.
   */
  subscribe(query: string, variables?: Record<string, unknown>): Promise<TestSubscription>;
}

export interface NewTestAccount extends AccountQuotas {
  fullName?: string;
  email?: string;
  permissions?: string[];
}

export interface TestServer {
  url: string;
  app: FiligraneApp;
  databaseUrl: string;
  masterKey: Buffer;
  /** The ManualClock when `clock: true` (or a date) was asked for; otherwise the clock given. */
  clock: ManualClock;
  /** The ids of the plugins actually loaded, in load order. */
  plugins: string[];
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** An account with its API key; `fullName` (default: the username), `email` and `permissions` (`press:ingest`, `home:/<user>`) as an operator would set them. */
  createAccount(username: string, options?: NewTestAccount): Promise<TestAccount>;
  /** Waits until no job (due now) waits or runs and no event waits in the outbox for delivery; throws after timeoutMs (default 60 s). */
  drainJobs(options?: { queues?: string[]; timeoutMs?: number }): Promise<void>;
  /**
   * Sends the jobs of the run-time schedules (`JobQueue.schedule`) due at the server's clock, as the
   * platform's `core.schedules` job does every minute, and returns how many; `drainJobs()` then runs
   * them. With a ManualClock: `clock.advance(ms)`, `runDueSchedules()`, `drainJobs()`.
   */
  runDueSchedules(): Promise<number>;
  /** A loopback site, closed with the server; the server's fetcher may reach it. */
  serveSite(pages?: Record<string, SitePage>): Promise<TestSite>;
  /** The plugin's service (or any binding) from the server's container. */
  get<T>(token: symbol | (abstract new (...args: never[]) => T)): T;
  /**
   * Stops this server as a process stops (jobs, schedules and events stay in its database) and starts
   * another on the same database, master key, clock, plugins and settings: what survives a restart
   * survives this. Use the server it returns (a new URL; API keys, sites and the clock carry over).
   */
  restart(): Promise<TestServer>;
  close(): Promise<void>;
}

/** The identity plugins every test server loads (authentication, accounts and their API keys). */
export const IDENTITY_PLUGINS = ['auth', 'account'];

/**
 * The installed first-party plugin `id`: the package `@filigrane/plugin-<id>`, resolved from the
 * working directory, then from this kit. The kit depends on no plugin: the test's package does.
 */
export function installedPlugin(id: string): FiligranePlugin | null {
  const name = `@filigrane/plugin-${id}`;
  for (const from of [join(process.cwd(), 'noop.js'), __filename]) {
    const req = createRequire(from);
    let path: string;
    try {
      path = req.resolve(name);
    } catch {
      continue;
    }
    const found = pluginsExportedBy(req(path) as Record<string, unknown>).find((p) => p.id === id);
    if (found) return found;
  }
  return null;
}

/** Plugin objects from what a test passed: modules and imports are unwrapped; ids stay for selectPlugins. */
export async function testPlugins(given: TestPlugin[]): Promise<(FiligranePlugin | string)[]> {
  const out: (FiligranePlugin | string)[] = [];
  for (const entry of await Promise.all(given)) {
    // A plugin object has a string id; a module has its plugins as exports.
    if (typeof entry === 'string' || isPlugin(entry) || typeof (entry as { id?: unknown } | null)?.id === 'string') out.push(entry as FiligranePlugin | string);
    else if (entry && typeof entry === 'object') {
      const found = pluginsExportedBy(entry as Record<string, unknown>);
      if (found.length === 0) throw new Error('startTestServer: a module in plugins exports no plugin');
      out.push(...found);
    } else throw new Error(`startTestServer: not a plugin: ${String(entry)}`);
  }
  return out;
}

/**
 * The plugins asked for, identity, and the plugins they require (transitively): given ones first,
 * then `resolve` (default: the installed `@filigrane/plugin-<id>` packages; or a list to pick from).
 */
export function selectPlugins(wanted: (FiligranePlugin | string)[], resolve: FiligranePlugin[] | ((id: string) => FiligranePlugin | null) = installedPlugin): FiligranePlugin[] {
  const lookup = Array.isArray(resolve) ? (id: string) => resolve.find((p) => p.id === id) ?? null : resolve;
  const given = new Map(wanted.filter((w): w is FiligranePlugin => typeof w !== 'string').map((p) => [p.id, p]));
  const chosen = new Map<string, FiligranePlugin>();
  const add = (p: FiligranePlugin | string, by?: string) => {
    const id = typeof p === 'string' ? p : p.id;
    if (chosen.has(id)) return;
    const plugin = typeof p === 'string' ? (given.get(p) ?? lookup(p)) : p;
    if (!plugin) {
      const hint = `pass it in plugins, or install @filigrane/plugin-${id}`;
      throw new Error(by ? `plugin "${by}" requires plugin "${id}": ${hint}` : `no plugin "${id}": ${hint}`);
    }
    chosen.set(plugin.id, plugin);
    for (const req of plugin.requires ?? []) add(req, plugin.id);
  };
  for (const p of [...IDENTITY_PLUGINS, ...wanted]) add(p);
  return [...chosen.values()];
}

function clockOf(option: TestServerOptions['clock']): Clock | undefined {
  if (option === true) return new ManualClock();
  if (option instanceof Date) return new ManualClock(option);
  return option || undefined;
}

/** A real Filigrane on loopback over its own database (embedded PostgreSQL, or a fresh database on DATABASE_URL). */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  if (!options?.plugins) throw new Error('startTestServer: name the plugins under test (`plugins: [myPlugin]`); the kit loads nothing else but identity and their requirements');
  const plugins = selectPlugins(await testPlugins(options.plugins));
  const env = { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'filigrane-test-')), FETCH_ALLOW_HOSTS: '127.0.0.1', ...options.env };
  // The kit owns the database it makes (dropped on close), so that a restart can keep it.
  const owned = options.databaseUrl ? null : await createTestDatabase();
  try {
    return await boot({ ...options, env, clock: clockOf(options.clock), databaseUrl: owned?.url ?? options.databaseUrl }, plugins, owned?.dispose ?? (async () => undefined), []);
  } catch (err) {
    await owned?.dispose();
    throw err;
  }
}

async function boot(options: TestServerOptions & { clock?: Clock; env: Record<string, string | undefined> }, plugins: FiligranePlugin[], disposeDatabase: () => Promise<void>, sites: TestSite[]): Promise<TestServer> {
  const clock = options.clock;
  const server = await bootTestServer({ ...options, plugins, clock, workers: options.workers ?? true });
  const { app, url } = server;
  const clients: { dispose(): void | Promise<void> }[] = [];
  const disposeClients = async () => {
    for (const c of clients.splice(0)) await c.dispose();
  };
  return {
    url,
    app,
    databaseUrl: server.databaseUrl,
    masterKey: server.masterKey,
    clock: clock as ManualClock,
    plugins: app.plugins.map((p) => p.id),
    call: (method, path, opts) => call(url, method, path, opts),
    async createAccount(username, options = {}) {
      const { fullName = username, email = `${username}@example.com`, permissions = [], ...quotas } = options;
      const { id, apiKey } = await app.container.get<AccountProvisioner>(TOKENS.AccountProvisioner).create({ username, email, fullName, permissions }, quotas);
      return {
        id,
        username,
        apiKey,
        call: (method, path, opts) => call(url, method, path, { ...opts, key: apiKey }),
        async subscribe(query, variables) {
          const { client } = connect(url, { authorization: `Token ${apiKey}` });
          clients.push(client);
          const sub = subscribe(client, query, variables);
          await settle(); // no "started" message in the protocol: let the server begin reading
          return sub;
        },
      };
    },
    drainJobs: (opts) => drainJobsAndEvents(app, opts),
    runDueSchedules: () => app.jobs.sendDueSchedules(app.container.get<Clock>(TOKENS.Clock).now()),
    async serveSite(pages) {
      const site = await serveSite(pages);
      sites.push(site);
      return site;
    },
    get: <T>(token: symbol | (abstract new (...args: never[]) => T)) => app.container.get<T>(token as symbol),
    async restart() {
      await disposeClients();
      await server.close(); // the app only: the database is the kit's
      return boot({ ...options, masterKey: server.masterKey }, plugins, disposeDatabase, sites);
    },
    async close() {
      await disposeClients();
      await Promise.all(sites.map((s) => s.close()));
      await server.close();
      await disposeDatabase();
    },
  };
}
