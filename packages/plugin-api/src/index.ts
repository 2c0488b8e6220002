// @filigrane/plugin-api: everything a Filigrane plugin may use, and nothing internal. A plugin
// depends on it as a peer dependency (the server's copy is the one loaded); its version is the
// plugin API version (semver, CHANGELOG.md). Implementation lives in @filigrane/core.
import 'reflect-metadata';
import { TOKENS as ALL_TOKENS } from '@filigrane/core';

// The plugin object, its version check, extension points.
export {
  definePlugin,
  contribute,
  createExtensionPoint,
  PLUGIN_API_VERSION,
  type FiligranePlugin,
  type PluginContext,
  type Contribution,
  type ExtensionPoint,
  type ExtensionRegistry,
} from '@filigrane/core';

// Settings: declared by the plugin, parsed at boot, injected by token.
export { defineSettings, setting, type SettingsDeclaration, type SettingSpec, type SettingValues, CORE_SETTINGS, type CoreSettings } from '@filigrane/core';

// Errors (the spec's error body) and REST route helpers.
export { ApiError, errorBody, badRequest, unauthorized, forbidden, notFound, conflict, unprocessable, validationError, type ErrorItem, type ErrorBody } from '@filigrane/core';
// One-line labels (names, titles, descriptions): control and invisible formatting characters refused.
export { labelProblem, labelError } from '@filigrane/core';
export {
  ok,
  created,
  accepted,
  noContent,
  file,
  streamed,
  queryString,
  isUploadedFile,
  type RouteSpec,
  type RouteContext,
  type RouteResponse,
  type ApiVersion,
  type HttpMethod,
  type JsonSchema,
  type UploadedFile,
  type QueryValue,
} from '@filigrane/core';
export { parsePage, pageRequest, pageEnvelope, pageSchema, MAX_PAGE_SIZE, type PageRequest, type PageEnvelope } from '@filigrane/core';
// CSV answers (format=csv on a route that declares `formats: ['csv']`): the service's one CSV rule
// (flattened columns, formulas neutralised, streamed batch by batch).
export { csvExport, wantsCsv, type CsvExport } from '@filigrane/core';
// The filter language of collections (`field=v`, `!field=v`, `field__in=a,b`...): field types for filters a plugin contributes.
export type { FilterField, FilterFields, FilterOp, FilterType, FilterValue } from '@filigrane/core';
export { canActOnHome, requirePrincipal, type Principal, type GraphQLContext, type SessionAuthenticator, type SessionRequest } from '@filigrane/core';
// GraphQL building blocks: typed filters translated to the REST filter language, connections,
// page sizes as REST checks them, per-request DataLoaders, REST views as camelCase objects.
export {
  filterInputType, filterToQuery, graphqlFieldName, StringFilter, IntFilter, DateFilter, DateRangeFilter, BooleanFilter, StringListFilter, IntListFilter,
  connectionType, offsetPage, offsetConnection, offsetAfter, offsetCursor, connectionFirst, graphqlPageSize, PageInfo, requestLoader, mediaLoader, camelCaseKeys,
  addFilterFields, GRAPHQL_SCHEMA_HOOKS, ApiErrorBodyObject, ApiErrorItemObject, apiErrorBodyObject, type Connection, type FilterInputClass, type FilterInputOptions,
} from '@filigrane/core';
// GraphQL subscriptions fed by the event outbox (graphql-ws on /graphql, the caller's account only),
// and the gateway's event objects other plugins add fields to (`MatchEvent.match`).
export { eventSubscription, MatchEvent, MatchEventKind, type LiveEvent, type LiveEventArgs } from '@filigrane/core';

// The platform's services: types, then the tokens that give them.
export { systemClock, type Clock } from '@filigrane/core';
export type { SecretSealer } from '@filigrane/core';
export type { BlobStore, ByteRange } from '@filigrane/core';
// A file the service stored and cannot find, or a store that fails: 500 `file_missing` / 503 `blob_store_unavailable`, the key logged.
// A store outage passes: a job handler rethrows it (isBlobStoreOutage) and the job is retried with a delay.
export { BlobMissingError, BlobStoreUnavailableError, isBlobStoreOutage, requireBlob } from '@filigrane/core';
export type { JobQueue, JobSpec, JobContext, JobFailure, JobSendOptions, JobScheduleOptions } from '@filigrane/core';
export type { Logger, LoggerFactory } from '@filigrane/core';
export { isFetchFailure, type Fetcher, type FetchOptions, type FetchResult, type FetchFailure, type FetchFailureCode } from '@filigrane/core';
export { EVENT_LISTENERS, WEBHOOK_EVENT_TYPES, onEvent, type EventPayloads, type EventType, type DomainEvent, type TypedEvent, type EventListener, type EventPublisher, type MatchEventData } from '@filigrane/core';
export { TRACKING_SOURCES, type TrackingSource, type MatchPipeline, type Sighting, type SightingMatch, type SubmitOptions } from '@filigrane/core';
export type { SqlRunner } from '@filigrane/core';
// TypeORM answers UPDATE/DELETE ... RETURNING with [rows, count]: the rows whatever the statement.
export { returnedRows } from '@filigrane/core';

// Media, read through the media plugin's interface, and the views every plugin showing media uses.
export type { MediaReader, MediaRecord, MediaNodeType, MediaKeyReference, ReducedOriginalPixels, ClientUrlResolver, Metadata, MetadataValue } from '@filigrane/core';
export { searchPathOf, assertWithinHome, type HomeScope } from '@filigrane/core';
export { fetchClientUrl, imageView, videoView, mediaView, fileUrl, mediaUrl, encodeMediaPath, parseMetadata, withTempFile, codecApiError } from '@filigrane/core';
export { ACCOUNT_DELETED_HOOKS, type AccountDeletedHook, type AccountLifecycle } from '@filigrane/core';

/**
 * The platform's services, for `@inject(TOKENS.X)`. Each is a `Symbol.for` key, so any copy of
 * this package names the same binding.
 */
export const TOKENS = {
  /** TypeORM DataSource over PostgreSQL: every plugin's entities; migrations already applied. */
  DataSource: ALL_TOKENS.DataSource,
  /** Files: put/get/open/delete by key; keys are `<plugin id>/...`. */
  BlobStore: ALL_TOKENS.BlobStore,
  /** The SSRF-safe fetcher, with the operator's FETCH_ALLOW_HOSTS applied. */
  Fetcher: ALL_TOKENS.Fetcher,
  /** Background jobs (pg-boss): send, singleton keys, drain. */
  JobQueue: ALL_TOKENS.JobQueue,
  /** `for('<plugin id>')`: the plugin's logger. */
  Loggers: ALL_TOKENS.Loggers,
  Clock: ALL_TOKENS.Clock,
  /** Publish domain events (`match.created`, your own). */
  Events: ALL_TOKENS.Events,
  /** The match pipeline: identify -> validate -> detect -> record. */
  MatchPipeline: ALL_TOKENS.MatchPipeline,
  /** Extension points' contributions (read the points your plugin declares). */
  Extensions: ALL_TOKENS.Extensions,
  AccountLifecycle: ALL_TOKENS.AccountLifecycle,
  /** The read-only media interface (requires the media plugin). */
  MediaReader: ALL_TOKENS.MediaReader,
  /** Seal a secret with the service's master key for storage, open it again (never log either). */
  Secrets: ALL_TOKENS.Secrets,
  /** Client-given URLs: SSRF-safe, the service's own URLs read locally (requires the media plugin). */
  ClientUrls: ALL_TOKENS.ClientUrls,
  /** Browser sessions (SessionAuthenticator, bound by the auth plugin): a Principal from a request's session cookie. */
  Sessions: ALL_TOKENS.Sessions,
} as const;

// Dependency injection: the container's own decorators and module class (no inversify of your own).
export { injectable, inject, optional, multiInject, named, ContainerModule, type Container, type ContainerModuleLoadOptions } from 'inversify';

// Storage: TypeORM's entity decorators and migration types (the server's one TypeORM).
export {
  Entity,
  Column,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  CreateDateColumn,
  UpdateDateColumn,
  Index,
  Unique,
  type DataSource,
  type EntityManager,
  type Repository,
  type MigrationInterface,
  type QueryRunner,
} from 'typeorm';

// GraphQL: type-graphql's decorators, for `resolvers`.
export { Resolver, Query, Mutation, Subscription, Arg, Args, ArgsType, Ctx, ObjectType, InputType, Field, ID, Int, Float, FieldResolver, Root, registerEnumType } from 'type-graphql';
