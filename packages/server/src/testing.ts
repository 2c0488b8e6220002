import { createTestDatabase } from '@filigrane/db';
import { randomBytes } from 'node:crypto';
import { TOKENS, type Clock, type FiligranePlugin } from '@filigrane/core';
import { checkBoot, createApp, type FiligraneApp } from './app.js';
import { loadConfig, type GatewayConfig } from './config.js';
import { EVENTS_QUEUE, type OutboxEventBus } from './events/outbox-event-bus.js';

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

/**
 * Waits until no job (due within the timeout) waits or runs and no event waits in the outbox. An
 * event's delivery job is sent just after its producer's commit: a drain falling between the two
 * would find no job, so due outbox events count too (unless `queues` leaves out the delivery queue).
 */
export async function drainJobsAndEvents(app: FiligraneApp, options: { queues?: string[]; timeoutMs?: number } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const events = !options.queues || options.queues.includes(EVENTS_QUEUE);
  for (;;) {
    await app.jobs.drain({ ...options, timeoutMs: Math.max(1, deadline - Date.now()) });
    if (!events || (await app.container.get<OutboxEventBus>(TOKENS.Events).dueCount()) === 0) return;
    if (Date.now() > deadline) throw new Error(`events still waiting in the outbox after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
