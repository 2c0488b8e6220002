import type { WorkPool } from './work-pool.js';
// Dependency-injection tokens shared by the gateway and every plugin. A plugin exports its own
// tokens for the services others may use; these are the ones the platform itself provides.
import type { Clock } from './clock.js';
import type { AppConfig } from './config.js';
import type { SecretBox, SecretSealer } from './secret-box.js';
import type { JobQueue } from './jobs.js';
import type { ExtensionRegistry } from './extension-point.js';
import type { BlobStore } from './blob-store.js';
import type { MatchPipeline } from './tracking.js';
import type { EventPublisher } from './events.js';
import type { DataSource } from 'typeorm';
import type { LoggerFactory } from './logger.js';
import type { Fetcher } from './fetcher.js';
import type { AccountLifecycle, AccountProvisioner } from './account-lifecycle.js';
import type { ClientUrlResolver, MediaReader } from './media-reader.js';
import type { SessionAuthenticator } from './request-context.js';

function token<T>(name: string): symbol & { __type?: T } {
  return Symbol.for(`filigrane.${name}`) as symbol & { __type?: T };
}

export const TOKENS = {
  Config: token<AppConfig>('Config'),
  Clock: token<Clock>('Clock'),
  /** The one TypeORM DataSource (PostgreSQL): every plugin's entities, migrations already run. */
  DataSource: token<DataSource>('DataSource'),
  SecretBox: token<SecretBox>('SecretBox'),
  /** Seals and opens a plugin's secrets with the master key (the SecretBox, seen through a narrow interface). */
  Secrets: token<SecretSealer>('Secrets'),
  JobQueue: token<JobQueue>('JobQueue'),
  Extensions: token<ExtensionRegistry>('Extensions'),
  Authenticator: token<unknown>('Authenticator'),
  /** Browser sessions (SessionAuthenticator), bound by the auth plugin. */
  Sessions: token<SessionAuthenticator>('Sessions'),
  RateLimiter: token<unknown>('RateLimiter'),
  BlobStore: token<BlobStore>('BlobStore'),
  MatchPipeline: token<MatchPipeline>('MatchPipeline'),
  Events: token<EventPublisher>('Events'),
  /** `loggers.for('<plugin id>')`: a logger whose lines name the plugin. */
  Loggers: token<LoggerFactory>('Loggers'),
  /** The SSRF-safe fetcher, FETCH_ALLOW_HOSTS applied. */
  Fetcher: token<Fetcher>('Fetcher'),
  /** Runs ACCOUNT_DELETED_HOOKS (called by the account plugin when it deletes an account). */
  AccountLifecycle: token<AccountLifecycle>('AccountLifecycle'),
  /** Makes accounts as an operator would (CLI, test kit), bound by the account plugin. */
  AccountProvisioner: token<AccountProvisioner>('AccountProvisioner'),
  /** Bounds image decodes and other heavy work of requests (503 + Retry-After when full). */
  WorkPool: token<WorkPool>('WorkPool'),
  /** The read-only media interface, bound by the media plugin (requires it). */
  MediaReader: token<MediaReader>('MediaReader'),
  /** Bytes behind a client-given URL (SSRF-safe, the service's own URLs read locally), bound by the media plugin. */
  ClientUrls: token<ClientUrlResolver>('ClientUrls'),
} as const;

/** The bytes behind a client-given URL, through the TOKENS.ClientUrls service of the request's container. */
export function fetchClientUrl(
  scope: { container: { get<T>(id: symbol): T }; principal?: import('./request-context.js').Principal | null; baseUrl: string },
  url: string,
): Promise<Buffer> {
  return scope.container.get<import('./media-reader.js').ClientUrlResolver>(TOKENS.ClientUrls).resolve(scope, url);
}
