import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { defineSettings, parseSettings, setting, type AppConfig } from '@filigrane/core';

export interface GatewayConfig extends AppConfig {
  /** Any PostgreSQL; unset means the embedded one under dataDir/pg. */
  databaseUrl?: string;
  embeddedPgPort: number;
  bodyLimitBytes: number;
  logLevel: string;
  /** The raw environment plugin settings are parsed from (never handed to plugins as such). */
  env: Record<string, string | undefined>;
}

/** Never in the deprecated `extra` bag: plugins that need a secret get it through a typed setting or a token. */
const NOT_FOR_PLUGINS = ['FILIGRANE_MASTER_KEY', 'DATABASE_URL'];

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** The gateway's own settings; with CORE_SETTINGS and every plugin's, one generated table (docs/configuration.md). */
export const GATEWAY_SETTINGS = defineSettings('gateway', {
  port: setting.integer({ env: 'PORT', default: 8080, min: 0, max: 65535, description: 'Port the API listens on' }),
  host: setting.string({ env: 'HOST', default: '127.0.0.1', description: 'Address the API listens on' }),
  dataDir: setting.string({ env: 'DATA_DIR', default: './data', description: 'Embedded database (`pg/`), master key, files' }),
  databaseUrl: setting.optionalUrl({ env: 'DATABASE_URL', secret: true, description: 'Any PostgreSQL instead of the embedded one' }),
  publicUrl: setting.optionalUrl({ env: 'PUBLIC_URL', description: 'Base URL for links when behind a proxy' }),
  perSecond: setting.integer({ env: 'RATE_LIMIT_PER_SECOND', default: 50, min: 0, description: 'Requests per account per second' }),
  perDay: setting.integer({ env: 'RATE_LIMIT_PER_DAY', default: 100_000, min: 0, description: 'Requests per account per day' }),
  masterKey: setting.optionalString({ env: 'FILIGRANE_MASTER_KEY', secret: true, description: 'Base64 key (32 bytes) that encrypts secrets at rest; default `DATA_DIR/master.key`; set it for several processes' }),
  logLevel: setting.string({ env: 'LOG_LEVEL', default: 'info', description: '`silent` turns request logs off' }),
  plugins: setting.list({ env: 'FILIGRANE_PLUGINS', default: [], description: 'Third-party plugin modules to load, comma-separated, resolved from the working directory (docs/plugins.md)' }),
  embeddedPgPort: setting.integer({ env: 'EMBEDDED_PG_PORT', default: 0, min: 0, max: 65535, description: 'Port of the embedded PostgreSQL (0: any free port)' }),
  bodyLimitBytes: setting.integer({ env: 'BODY_LIMIT_BYTES', default: 64 * 1024 * 1024, min: 1, description: 'Largest request body' }),
  toolDir: setting.optionalString({ env: 'TOOL_DIR', description: 'Folder of the offline tool\'s binaries (default `packages/tool/release`)' }),
  toolVersion: setting.optionalString({ env: 'TOOL_VERSION', description: 'Version name the download endpoint shows (default: the package version)' }),
});

/** Settings from the environment; every one has a default that works on a fresh machine. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const s = parseSettings(GATEWAY_SETTINGS, env);
  const dataDir = resolve(env.DATA_DIR ? s.dataDir : join(process.cwd(), 'data'));
  return {
    host: s.host,
    port: s.port,
    publicUrl: s.publicUrl?.replace(/\/+$/, ''),
    dataDir,
    databaseUrl: s.databaseUrl,
    embeddedPgPort: s.embeddedPgPort,
    rateLimit: { perSecond: s.perSecond, perDay: s.perDay },
    tokenLifetimeSeconds: 3600,
    toolDir: resolve(s.toolDir ?? join(REPO_ROOT, 'packages', 'tool', 'release')),
    toolVersion: s.toolVersion ?? readVersion(),
    bodyLimitBytes: s.bodyLimitBytes,
    logLevel: s.logLevel,
    env: { ...env },
    extra: Object.fromEntries(Object.entries(env).filter(([k]) => !NOT_FOR_PLUGINS.includes(k))),
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
 * as every process of a multi-machine deployment needs; else a key file created once in dataDir.
 */
export function loadMasterKey(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.FILIGRANE_MASTER_KEY) {
    const key = Buffer.from(env.FILIGRANE_MASTER_KEY, 'base64');
    if (key.length < 32) throw new Error('FILIGRANE_MASTER_KEY must be at least 32 bytes, base64-encoded');
    return key;
  }
  const file = join(config.dataDir, 'master.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
}
