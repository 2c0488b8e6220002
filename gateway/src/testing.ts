import { createTestDatabase } from '@filigrane/db';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountService, type QuotaLimits } from '@filigrane/plugin-account';
import type { Clock, FiligranePlugin } from '@filigrane/core';
import { checkBoot, createApp, type FiligraneApp } from './app.js';
import { loadConfig, type GatewayConfig } from './config.js';
import { configuredPlugins, defaultPlugins } from './plugins.js';

export interface CallOptions {
  /** API key, sent as `Authorization: Token <key>`. */
  key?: string;
  /** Access token, sent as `Authorization: Bearer <token>`. */
  bearer?: string;
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One HTTP request to a running Filigrane, as a client would make it. */
export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Token ${options.key}`;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(new URL(path, baseUrl), { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A Filigrane app on loopback over its own database: the core that both test kits build on. */
export interface BootedTestServer {
  url: string;
  app: FiligraneApp;
  databaseUrl: string;
  masterKey: Buffer;
  close(): Promise<void>;
}

export interface BootTestServerOptions {
  plugins: FiligranePlugin[];
  /** The environment the config and settings are read from. */
  env: Record<string, string | undefined>;
  config?: Partial<GatewayConfig>;
  clock?: Clock;
  workers: boolean;
  databaseUrl?: string;
  masterKey?: Buffer;
  log?: (line: string) => void;
}

/** Boots an app on 127.0.0.1 over a fresh database (embedded, or one made on DATABASE_URL) unless one is given. */
export async function bootTestServer(options: BootTestServerOptions): Promise<BootedTestServer> {
  // Tests fire requests faster than any client should: limits are high unless a test sets them.
  const defaults: Partial<GatewayConfig> = { rateLimit: { perSecond: 100_000, perDay: 100_000_000 } };
  const config: GatewayConfig = { ...loadConfig(options.env), ...defaults, ...options.config };
  checkBoot(options.plugins, config);
  const db = options.databaseUrl ? { url: options.databaseUrl, dispose: async () => undefined } : await createTestDatabase();
  const masterKey = options.masterKey ?? randomBytes(32);
  let app: FiligraneApp;
  try {
    app = await createApp({ config, plugins: options.plugins, databaseUrl: db.url, masterKey, clock: options.clock, workers: options.workers, log: options.log ?? (() => undefined) });
  } catch (err) {
    await db.dispose();
    throw err;
  }
  const url = await app.listen(0, '127.0.0.1');
  return {
    url,
    app,
    databaseUrl: db.url,
    masterKey,
    async close() {
      await app.close();
      await db.dispose();
    },
  };
}

/** @deprecated use @filigrane/testing (plugins under test only, jobs running); kept while the repository's tests move. */
export interface TestServer {
  url: string;
  app: FiligraneApp;
  databaseUrl: string;
  /** The master key of this server (other apps on its database need the same). */
  masterKey: Buffer;
  /** An HTTP call on loopback; JSON bodies are encoded and decoded. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** Creates an account and returns its username and API key. */
  createAccount(username: string, quotas?: QuotaLimits): Promise<{ username: string; apiKey: string; id: number }>;
  close(): Promise<void>;
}

/**
 * A real Filigrane on loopback over an isolated database (embedded, or a fresh database on
 * DATABASE_URL), for end-to-end tests.
 */
export interface TestServerOptions {
  plugins?: FiligranePlugin[];
  clock?: Clock;
  config?: Partial<GatewayConfig>;
  /** Environment variables on top of the process's (plugin settings, FILIGRANE_PLUGINS). */
  env?: Record<string, string>;
  workers?: boolean;
  /** Reuse this database (a restart); otherwise each server gets a fresh one. */
  databaseUrl?: string;
  /** The master key (a restart must reuse it to read secrets it stored). */
  masterKey?: Buffer;
}

/** @deprecated use @filigrane/testing. All built-in plugins (and FILIGRANE_PLUGINS of options.env), no job workers unless asked. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  // Without an explicit list: the built-in plugins and those options.env's FILIGRANE_PLUGINS names.
  const plugins = options.plugins ?? [...defaultPlugins(), ...(await configuredPlugins(options.env ?? {}))];
  const env = { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'filigrane-test-')), ...options.env };
  const server = await bootTestServer({ ...options, plugins, env, workers: options.workers ?? false });
  const { app, url } = server;
  return {
    ...server,
    call: (method, path, opts) => call(url, method, path, opts),
    async createAccount(username, quotas) {
      const { account, apiKey } = await app.container.get(AccountService).create({ username, email: `${username}@example.com`, fullName: username }, quotas);
      return { username, apiKey, id: account.id };
    },
  };
}
