import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, type Clock, type FiligranePlugin } from '@filigrane/core';
import { AccountService, type QuotaLimits } from '@filigrane/plugin-account';
import { IdentityService } from '@filigrane/plugin-auth';
import { bootTestServer, call, defaultPlugins, drainJobsAndEvents, type CallOptions, type CallResult, type FiligraneApp, type GatewayConfig } from '@filigrane/gateway';
import { serveSite, type SitePage, type TestSite } from './test-site.js';

export interface TestServerOptions {
  /**
   * The plugins under test: plugin objects, or ids of built-in plugins ('search', 'crawler'...).
   * The server loads these, `auth` and `account` (identity: every authenticated route needs them),
   * and whatever they `require`, built-in plugins only; nothing else. Default: every built-in plugin.
   */
  plugins?: (FiligranePlugin | string)[];
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
}

export interface NewTestAccount extends QuotaLimits {
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
  /** A loopback site, closed with the server; the server's fetcher may reach it. */
  serveSite(pages?: Record<string, SitePage>): Promise<TestSite>;
  /** The plugin's service (or any binding) from the server's container. */
  get<T>(token: symbol | (abstract new (...args: never[]) => T)): T;
  close(): Promise<void>;
}

/** The plugins asked for, identity, and the built-in plugins they require (transitively). */
export function selectPlugins(wanted: (FiligranePlugin | string)[] | undefined, builtIn = defaultPlugins()): FiligranePlugin[] {
  if (!wanted) return builtIn;
  const byId = new Map(builtIn.map((p) => [p.id, p]));
  const chosen = new Map<string, FiligranePlugin>();
  const add = (p: FiligranePlugin | string, by?: string) => {
    const plugin = typeof p === 'string' ? byId.get(p) : p;
    if (!plugin) throw new Error(by ? `plugin "${by}" requires plugin "${String(p)}", which is not a built-in plugin: pass it in plugins` : `no built-in plugin "${String(p)}"`);
    if (chosen.has(plugin.id)) return;
    chosen.set(plugin.id, plugin);
    for (const req of plugin.requires ?? []) if (!chosen.has(req) && !wanted.some((w) => (typeof w === 'string' ? w : w.id) === req)) add(req, plugin.id);
  };
  for (const p of ['auth', 'account', ...wanted]) add(p);
  return [...chosen.values()];
}

function clockOf(option: TestServerOptions['clock']): Clock | undefined {
  if (option === true) return new ManualClock();
  if (option instanceof Date) return new ManualClock(option);
  return option || undefined;
}

/** A real Filigrane on loopback over its own database (embedded PostgreSQL, or a fresh database on DATABASE_URL). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const plugins = selectPlugins(options.plugins);
  const env = { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'filigrane-test-')), FETCH_ALLOW_HOSTS: '127.0.0.1', ...options.env };
  const clock = clockOf(options.clock);
  const server = await bootTestServer({ ...options, plugins, env, clock, workers: options.workers ?? true });
  const { app, url } = server;
  const sites: TestSite[] = [];
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
      const { account, apiKey } = await app.container.get(AccountService).create({ username, email, fullName }, quotas);
      for (const permission of permissions) await app.container.get(IdentityService).grant(account.id, permission);
      return { id: account.id, username, apiKey, call: (method, path, opts) => call(url, method, path, { ...opts, key: apiKey }) };
    },
    drainJobs: (opts) => drainJobsAndEvents(app, opts),
    async serveSite(pages) {
      const site = await serveSite(pages);
      sites.push(site);
      return site;
    },
    get: <T>(token: symbol | (abstract new (...args: never[]) => T)) => app.container.get<T>(token as symbol),
    async close() {
      await Promise.all(sites.map((s) => s.close()));
      await server.close();
    },
  };
}
