import { createTestDatabase } from '@filigrane/db';
import { randomBytes } from 'node:crypto';
import { AccountService, type QuotaLimits } from '@filigrane/plugin-account';
import type { Clock, FiligranePlugin } from '@filigrane/core';
import { createApp, type FiligraneApp } from './app.js';
import { loadConfig, type GatewayConfig } from './config.js';
import { defaultPlugins } from './plugins.js';

export interface TestServer {
  url: string;
  app: FiligraneApp;
  databaseUrl: string;
  /** Creates an account and returns its username and API key. */
  createAccount(username: string, quotas?: QuotaLimits): Promise<{ username: string; apiKey: string; id: number }>;
  close(): Promise<void>;
}

/**
 * A real Filigrane on loopback over an isolated database (embedded, or a fresh database on
 * DATABASE_URL), for end-to-end tests.
 */
export async function startTestServer(options: { plugins?: FiligranePlugin[]; clock?: Clock; config?: Partial<GatewayConfig>; workers?: boolean } = {}): Promise<TestServer> {
  const db = await createTestDatabase();
  const config: GatewayConfig = { ...loadConfig({ ...process.env, DATA_DIR: `/tmp/filigrane-test-${process.pid}` }), ...options.config };
  const app = await createApp({
    config,
    plugins: options.plugins ?? defaultPlugins(),
    databaseUrl: db.url,
    masterKey: randomBytes(32),
    clock: options.clock,
    workers: options.workers ?? false,
    log: () => undefined,
  });
  const url = await app.listen(0, '127.0.0.1');
  return {
    url,
    app,
    databaseUrl: db.url,
    async createAccount(username, quotas) {
      const { account, apiKey } = await app.container.get(AccountService).create({ username, email: `${username}@example.com`, fullName: username }, quotas);
      return { username, apiKey, id: account.id };
    },
    async close() {
      await app.close();
      await db.dispose();
    },
  };
}
