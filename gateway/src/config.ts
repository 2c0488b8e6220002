import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppConfig } from '@filigrane/core';
import type { MasterKeySource } from './master-key/master-key.js';

export interface GatewayConfig extends AppConfig {
  /** Any PostgreSQL; unset means the embedded one under dataDir/pg. */
  databaseUrl?: string;
  embeddedPgPort: number;
  bodyLimitBytes: number;
  logLevel: string;
}

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

/** Settings from the environment; every one has a default that works on a fresh machine. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const dataDir = resolve(env.DATA_DIR ?? join(process.cwd(), 'data'));
  return {
    host: env.HOST ?? '127.0.0.1',
    port: int(env, 'PORT', 8080),
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, ''),
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 0),
    rateLimit: { perSecond: int(env, 'RATE_LIMIT_PER_SECOND', 50), perDay: int(env, 'RATE_LIMIT_PER_DAY', 100_000) },
    tokenLifetimeSeconds: 3600,
    toolDir: resolve(env.TOOL_DIR ?? join(REPO_ROOT, 'packages', 'tool', 'release')),
    toolVersion: env.TOOL_VERSION ?? readVersion(),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024 * 1024),
    logLevel: env.LOG_LEVEL ?? 'info',
    extra: { ...env },
  };
}

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * The master key that encrypts secrets at rest: FILIGRANE_MASTER_KEY (base64, 32 bytes) when set,
 * as every process of a multi-machine deployment needs; else the key file in dataDir, which the
 * gateway creates only for an empty database and checks against the database at every start.
 */
export function masterKeySource(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): MasterKeySource {
  if (env.FILIGRANE_MASTER_KEY) {
    const key = Buffer.from(env.FILIGRANE_MASTER_KEY, 'base64');
    if (key.length < 32) throw new Error('FILIGRANE_MASTER_KEY must be at least 32 bytes, base64-encoded');
    return key;
  }
  return { file: join(config.dataDir, 'master.key') };
}
