import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { defineSettings, parseSettings, setting, type AppConfig } from '@filigrane/core';
import type { MasterKeySource } from './master-key/master-key.js';

export interface GatewayConfig extends AppConfig {
  /** Any PostgreSQL; unset means the embedded one under dataDir/pg. */
  databaseUrl?: string;
  embeddedPgPort: number;
  bodyLimitBytes: number;
  /** Seconds a client has to send a whole request (0: no limit). */
  requestTimeoutSeconds: number;
  logLevel: string;
  /** `auto`: `filigrane start` builds the offline tool in the background when it is missing. */
  toolBuild: string;
  /** Proxies whose X-Forwarded-For is believed: a hop count, or their addresses/CIDRs; false: none. */
  trustProxy: number | string[] | false;
  /** BLOB_STORE_URL (`s3://bucket/prefix`); unset: files under dataDir/blobs. */
  blobStoreUrl?: string;
  s3Endpoint?: string;
  s3ForcePathStyle: boolean;
  /** Bearer token that opens GET /metrics; unset: no metrics endpoint (404). */
  metricsToken?: string;
  /** Origins whose pages may call the API from a browser (CORS), credentials included. */
  corsOrigins: string[];
  /** A file of trusted GraphQL documents: only those run (GRAPHQL_TRUSTED_DOCUMENTS). */
  graphqlTrustedDocuments?: string;
  /** How long a signed file URL works. */
  signedUrlSeconds: number;
  /** A running job whose process has not renewed its lease for this long is retried elsewhere. */
  jobLeaseSeconds: number;
  /** Retries, and the first delay, of a job whose attempt found the file store unreachable. */
  jobStoreRetries: number;
  jobStoreRetrySeconds: number;
  /** The raw environment plugin settings are parsed from (never handed to plugins as such). */
  env: Record<string, string | undefined>;
}

/** Never in the deprecated `extra` bag: plugins that need a secret get it through a typed setting or a token. */
const NOT_FOR_PLUGINS = ['FILIGRANE_MASTER_KEY', 'DATABASE_URL', 'METRICS_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];

/**
 * The checkout the service runs from (packages/server/dist/src -> the repository root): its package.json's
 * version, packages/tool/release, and for the gateway the tool's build script and the packages to pack.
 */
export const CHECKOUT = resolve(__dirname, '..', '..', '..', '..');

/** The gateway's own settings; with CORE_SETTINGS and every plugin's, one generated table (docs/configuration.md). */
export const GATEWAY_SETTINGS = defineSettings('gateway', {
  port: setting.integer({ env: 'PORT', default: 8080, min: 0, max: 65535, description: 'Port the API listens on (`filigrane worker`: its `/metrics`, with `METRICS_TOKEN`)' }),
  host: setting.string({ env: 'HOST', default: '127.0.0.1', description: 'Address the API listens on (`filigrane worker`: its `/metrics`)' }),
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
  requestTimeoutSeconds: setting.integer({
    env: 'REQUEST_TIMEOUT_SECONDS',
    default: 300,
    min: 0,
    description: 'Seconds a client has to send a whole request, headers and body; then 408 `request_timeout` and the connection is closed (0: no limit)',
  }),
  trustProxy: setting.optionalString({
    env: 'TRUST_PROXY',
    description: 'Proxies in front of the API whose `X-Forwarded-For` is believed: a hop count (`1`: one load balancer) or comma-separated proxy addresses/CIDRs; unset: the header is ignored',
  }),
  toolDir: setting.optionalString({ env: 'TOOL_DIR', description: 'Folder of the offline tool\'s binaries (default `packages/tool/release`)' }),
  toolVersion: setting.optionalString({ env: 'TOOL_VERSION', description: 'Version name the download endpoint shows (default: the package version)' }),
  blobStoreUrl: setting.optionalString({
    env: 'BLOB_STORE_URL',
    description: 'Where files are kept: `s3://bucket/prefix` for S3 or any S3-compatible store (credentials and region from the AWS SDK\'s standard variables: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE`..., `AWS_REGION` or `AWS_DEFAULT_REGION`, default `us-east-1`); the bucket must exist (checked at start). Unset: `DATA_DIR/blobs`. Required when processes share no folder',
  }),
  s3Endpoint: setting.optionalUrl({ env: 'S3_ENDPOINT', description: 'S3-compatible endpoint (MinIO, Garage, Ceph, R2), e.g. `http://minio:9000`; unset: AWS S3' }),
  s3ForcePathStyle: setting.boolean({ env: 'S3_FORCE_PATH_STYLE', default: false, description: '`true`: path-style URLs (`endpoint/bucket/key`), which most self-hosted S3-compatible stores need' }),
  metricsToken: setting.optionalString({ env: 'METRICS_TOKEN', secret: true, description: 'Bearer token that opens the Prometheus endpoint `GET /metrics` (`Authorization: Bearer <token>`; 401 without it), on the API port, or on `PORT` for a `filigrane worker`; unset: no endpoint (404, and a worker listens on no port)' }),
  corsOrigins: setting.list({
    env: 'CORS_ORIGINS',
    default: [],
    description: 'Origins (`https://console.example.com`, comma-separated) whose pages may call REST and GraphQL from a browser, credentials included; any other origin gets no CORS header. Unset: none',
  }),
  graphqlTrustedDocuments: setting.optionalString({
    env: 'GRAPHQL_TRUSTED_DOCUMENTS',
    description: 'JSON file of trusted GraphQL documents (`{"<sha256>": "query ..."}` or an Apollo persisted-query manifest): only these run, sent by `documentId` (`sha256:<hash>`) or as their exact text; for production (docs/graphql.md). Unset: any query within the limits',
  }),
  signedUrlSeconds: setting.integer({ env: 'SIGNED_URL_SECONDS', default: 900, min: 10, max: 7 * 24 * 3600, description: 'Lifetime of signed file URLs (thumbnails, images, artifacts opened without an Authorization header)' }),
  jobLeaseSeconds: setting.integer({
    env: 'JOB_LEASE_SECONDS',
    default: 60,
    min: 2,
    max: 3600,
    description: 'A job whose worker process stopped renewing its lease (every quarter of this) for this long, killed or lost with its machine, is retried by another worker',
  }),
  jobStoreRetries: setting.integer({
    env: 'JOB_STORE_RETRIES',
    default: 6,
    min: 0,
    max: 20,
    description: 'A job whose attempt failed because the file store was unreachable (503 `blob_store_unavailable`) is retried at least this many times, after a delay that doubles each time; then it fails for good with that code',
  }),
  jobStoreRetrySeconds: setting.integer({
    env: 'JOB_STORE_RETRY_SECONDS',
    default: 5,
    min: 1,
    max: 3600,
    description: 'The first of those delays (seconds; each next one doubles, with up to as much again at random): with the defaults a job waits 5 to 10 minutes for the store',
  }),
  toolBuild: setting.string({ env: 'TOOL_BUILD', default: 'auto', choices: ['auto', 'off'], description: '`auto`: the first `start` builds the linux-x64 offline tool in the background when `TOOL_DIR` lacks it; `off`: never' }),
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
    toolDir: resolve(s.toolDir ?? join(CHECKOUT, 'packages', 'tool', 'release')),
    toolVersion: s.toolVersion ?? readVersion(),
    bodyLimitBytes: s.bodyLimitBytes,
    requestTimeoutSeconds: s.requestTimeoutSeconds,
    logLevel: s.logLevel,
    toolBuild: s.toolBuild,
    blobStoreUrl: s.blobStoreUrl,
    s3Endpoint: s.s3Endpoint,
    s3ForcePathStyle: s.s3ForcePathStyle,
    metricsToken: s.metricsToken,
    trustProxy: parseTrustProxy(s.trustProxy),
    corsOrigins: s.corsOrigins,
    graphqlTrustedDocuments: s.graphqlTrustedDocuments,
    signedUrlSeconds: s.signedUrlSeconds,
    jobLeaseSeconds: s.jobLeaseSeconds,
    jobStoreRetries: s.jobStoreRetries,
    jobStoreRetrySeconds: s.jobStoreRetrySeconds,
    env: { ...env },
    extra: Object.fromEntries(Object.entries(env).filter(([k]) => !NOT_FOR_PLUGINS.includes(k))),
  };
}

/**
 * TRUST_PROXY: how many proxies (hops) stand in front, or which addresses they have. Never "trust
 * everything": the leftmost X-Forwarded-For entry is whatever the client wrote, so only entries
 * added by our own proxies are believed.
 */
export function parseTrustProxy(raw: string | undefined): number | string[] | false {
  const value = raw?.trim();
  if (!value || value === '0') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim()).filter(Boolean);
  for (const e of entries) {
    const [address, bits, ...rest] = e.split('/');
    const version = isIP(address ?? '');
    const maxBits = version === 4 ? 32 : 128;
    if (!version || rest.length || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new Error(`TRUST_PROXY must be a hop count or comma-separated proxy addresses/CIDRs, got "${e}" (for example TRUST_PROXY=1 or TRUST_PROXY=10.0.0.0/8)`);
    }
  }
  return entries;
}

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(CHECKOUT, 'package.json'), 'utf8')) as { version: string }).version;
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
