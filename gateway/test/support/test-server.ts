import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountService, type QuotaLimits } from '@filigrane/plugin-account';
import type { Clock, FiligranePlugin } from '@filigrane/core';
import { bootTestServer, call, type CallOptions, type CallResult, type FiligraneApp, type GatewayConfig } from '@filigrane/server';
import { defaultPlugins } from '../../src/plugins.js';

// The gateway's own tests (HTTP conventions, limits, metrics, CLI) run the whole server as `filigrane start`
// assembles it. Plugin and end-to-end tests use @filigrane/testing instead; the gateway's tests cannot
// (this layer loads every first-party plugin and the console, as the gateway does), so this thin
// layer over bootTestServer stays here, unexported.
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
  workers?: boolean;
}

/** All built-in plugins unless given, no job workers unless asked. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const env = { ...process.env, DATA_DIR: mkdtempSync(join(tmpdir(), 'filigrane-test-')) };
  const server = await bootTestServer({ ...options, plugins: options.plugins ?? defaultPlugins(), env, workers: options.workers ?? false });
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
