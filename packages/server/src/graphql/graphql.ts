import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerErrorCode, ApolloServerValidationErrorCode } from '@apollo/server/errors';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLError, GraphQLObjectType, GraphQLSchema, isNonNullType, specifiedDirectives, type GraphQLFormattedError } from 'graphql';
import type { Container } from 'inversify';
import { buildSchema, type MiddlewareFn, type NonEmptyArray } from 'type-graphql';
import { ApiError, GRAPHQL_SCHEMA_HOOKS, rejectNul, TOKENS, type ExtensionRegistry, type FiligranePlugin, type GraphQLContext } from '@filigrane/core';
import { rateSubject, type RateLimiter } from '../rate-limit/rate-limiter.service.js';
import { checkDocument, checkQuery, GRAPHQL_LIMITS, QueryTooComplexError } from './query-limits.js';
import { toApiError } from '../rest/error-mapping.js';
import { EXPLORER_HTML } from './explorer.js';
import type { RequestAuthentication } from '../auth/request-authentication.js';
import type { FileUrls } from '../browser/file-urls.js';
import { mountSubscriptions } from './subscriptions.js';
import { SIGNED_URLS_DIRECTIVE, signedData } from './signed-urls.js';
import type { TrustedDocuments } from './trusted-documents.js';

export { SIGNED_URLS_DIRECTIVE } from './signed-urls.js';

/** Every argument of every field, inline or from variables, after coercion: NUL and unpaired surrogates are refused as in REST. */
const refuseNulArguments: MiddlewareFn = ({ args }, next) => {
  rejectNul(args);
  return next();
};

/** Builds one schema from every plugin's resolvers; resolvers come from the DI container. */
export async function buildGraphQLSchema(plugins: FiligranePlugin[], container: Container) {
  // The gateway's own resolvers (subscriptions, signed URLs) come with its built-in browser plugin.
  const resolvers = plugins.flatMap((p) => p.resolvers ?? []);
  if (resolvers.length === 0) throw new Error('no plugin contributes GraphQL resolvers');
  for (const hook of container.get<ExtensionRegistry>(TOKENS.Extensions).get(GRAPHQL_SCHEMA_HOOKS)) hook();
  const schema = await buildSchema({
    resolvers: resolvers as unknown as NonEmptyArray<Function>,
    container: { get: (cls) => container.get(cls) },
    validate: false,
    globalMiddlewares: [refuseNulArguments],
    directives: [...specifiedDirectives, SIGNED_URLS_DIRECTIVE],
    // type-graphql insists on a PubSub once there are subscriptions; ours each bring their own
    // `subscribe` (the outbox tail, LIVE_EVENTS), so topics are refused.
    pubSub: {
      publish: () => undefined,
      subscribe: () => {
        throw new Error('subscriptions declare their own subscribe function (LIVE_EVENTS)');
      },
    },
  });
  return nullableRootFields(schema);
}

/** Apollo's own refusals (syntax, validation, variables that do not coerce): the client's fault, said as they are. */
const APOLLO_CLIENT_CODES = new Set<unknown>([...Object.values(ApolloServerErrorCode), ...Object.values(ApolloServerValidationErrorCode)].filter((c) => c !== ApolloServerErrorCode.INTERNAL_SERVER_ERROR));

/** 400s about the HTTP request itself (not its operation's input). */
const REQUEST_CODES = new Set(['parse_error', 'batch_not_supported', 'subscription_over_http', 'invalid_content_length', 'bad_url', 'bad_request']);

/** The GraphQL error code (`extensions.code`) of an API error: what GraphQL clients switch on. */
export function graphqlCode(api: ApiError): string {
  if (api.code === 'query_too_complex') return 'QUERY_TOO_COMPLEX';
  if (REQUEST_CODES.has(api.code)) return ApolloServerErrorCode.BAD_REQUEST;
  switch (api.statusCode) {
    case 400:
    case 422:
      return ApolloServerErrorCode.BAD_USER_INPUT;
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'FORBIDDEN';
    case 404:
    case 410:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return ApolloServerErrorCode.BAD_REQUEST;
    case 429:
      return 'RATE_LIMITED';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return api.statusCode < 500 ? ApolloServerErrorCode.BAD_REQUEST : ApolloServerErrorCode.INTERNAL_SERVER_ERROR;
  }
}

/** A readable message from the REST details: a string as it is, `{param: [reasons]}` as `param: reasons`. */
function messageOf(api: ApiError): string {
  if (typeof api.details === 'string') return api.details;
  if (api.details && typeof api.details === 'object' && !Array.isArray(api.details)) {
    const parts = Object.entries(api.details as Record<string, unknown>).map(([k, v]) => `${k}: ${[v].flat().join(' ')}`);
    if (parts.length) return parts.join('; ');
  }
  return api.code;
}

/**
 * The `extensions` of an API error: the GraphQL code, the REST status and code (`apiCode`) and its
 * details; the complexity refusal adds the limits crossed and the measured cost.
 */
export function graphqlExtensions(api: ApiError): Record<string, unknown> {
  const extensions: Record<string, unknown> = { code: graphqlCode(api), status_code: api.statusCode, apiCode: api.code, details: api.details };
  if (api instanceof QueryTooComplexError) {
    const first = api.over[0]!;
    Object.assign(extensions, { limit: first.max, limitName: first.limit, cost: api.measure.cost, limits: api.over });
  }
  if (api.headers['retry-after']) extensions.retryAfter = Number(api.headers['retry-after']);
  return extensions;
}

/** A refusal before execution (credentials, rate, cost, body) as a GraphQL response: `errors` only, no `data`. */
export function graphqlRefusal(err: unknown): { status: number; headers: Record<string, string>; body: { errors: GraphQLFormattedError[] } } {
  const api = toApiError(err);
  return { status: api.statusCode, headers: api.headers, body: { errors: [{ message: messageOf(api), extensions: graphqlExtensions(api) }] } };
}

/**
 * Errors carry a GraphQL code and the REST status, code and details in `extensions`; 500s are
 * logged like REST's, and their message is the generic one (never a stack or a server path).
 * Apollo wraps its own refusals with the GraphQLError as `originalError`: they keep Apollo's code
 * with a 400. graphql-js's errors without an original are the request's (too many variable errors)
 * unless they sit on a result path (a null for a non-null field: ours).
 */
export const formatErrorWith = (log: FastifyBaseLogger) => (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
  const original = (error as { originalError?: unknown }).originalError;
  const code = formatted.extensions?.code;
  if (!(original instanceof ApiError) && (original ? APOLLO_CLIENT_CODES.has(code) : !formatted.path)) {
    const details = formatted.message;
    // Apollo's own HTTP status when it sets one (405: a mutation by GET), so status_code says what HTTP said.
    const http = [error, original].map((e) => (e as { extensions?: { http?: { status?: unknown } } } | undefined)?.extensions?.http?.status).find((v) => typeof v === 'number');
    const status = typeof http === 'number' && http >= 400 && http < 500 ? http : 400;
    const graphqlCode = APOLLO_CLIENT_CODES.has(code) ? String(code) : ApolloServerErrorCode.BAD_USER_INPUT;
    // Every error has an apiCode, as REST's bodies have a code: Apollo's own code in REST's lower case.
    return { message: details, locations: formatted.locations, extensions: { code: graphqlCode, status_code: status, apiCode: graphqlCode.toLowerCase(), details } };
  }
  const api = toApiError(original);
  if (api.statusCode >= 500) log.error({ err: original ?? formatted, path: formatted.path }, 'GraphQL resolver failed');
  return { message: messageOf(api), locations: formatted.locations, path: formatted.path, extensions: graphqlExtensions(api) };
};

/**
 * Root fields are nullable, whatever their resolver declares: a field that fails (a bad filter, a
 * missing object, a missing permission) is null with its error, and the other root fields of the
 * request keep their data (a non-null root field would null the whole `data`).
 */
function nullableRootFields(schema: GraphQLSchema): GraphQLSchema {
  const config = schema.toConfig();
  const replaced = new Map<GraphQLObjectType, GraphQLObjectType>();
  for (const root of [config.query, config.mutation].filter((t): t is GraphQLObjectType => !!t)) {
    const rootConfig = root.toConfig();
    const fields = Object.fromEntries(Object.entries(rootConfig.fields).map(([name, f]) => [name, { ...f, type: isNonNullType(f.type) ? f.type.ofType : f.type }]));
    replaced.set(root, new GraphQLObjectType({ ...rootConfig, fields }));
  }
  const swap = (t: GraphQLObjectType | null | undefined) => (t ? (replaced.get(t) ?? t) : t);
  return new GraphQLSchema({
    ...config,
    query: swap(config.query),
    mutation: swap(config.mutation),
    types: config.types.map((t) => (t instanceof GraphQLObjectType ? swap(t)! : t)),
  });
}

export interface GraphQLBrowserOptions {
  authentication: RequestAuthentication;
  originAllowed: (origin: string | undefined) => boolean;
  fileUrls: FileUrls;
  trusted: TrustedDocuments | null;
}

/**
 * Subscriptions run over WebSocket only: over HTTP Apollo would call the subscription resolver as a
 * query (without an event: a 500). Refused once the operation is known (the operationName chosen).
 */
function subscriptionsOverWebSocketPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation !== 'subscription') return;
          const refusal = new ApiError(400, 'subscription_over_http', 'Subscriptions run over WebSocket on /graphql (graphql-transport-ws protocol), not over HTTP.');
          throw new GraphQLError(refusal.message, { originalError: refusal, extensions: { http: { status: 400 } } });
        },
      };
    },
  };
}

/** What the HTTP handler knew of a request before Apollo: who it counts against, and whether its text was measured. */
interface Admission {
  subject: string;
  measured: boolean;
}
/** Kept on the context itself under a symbol: Apollo hands the hooks a copy of the context (own enumerable keys, symbols too). */
const ADMISSION = Symbol('admission');
const admissionOf = (context: GraphQLContext) => (context as GraphQLContext & { [ADMISSION]?: Admission })[ADMISSION];

/** An API error thrown from an Apollo hook: its status (and Retry-After) on the HTTP answer, its body from formatError. */
const hookError = (api: ApiError) =>
  new GraphQLError(api.message, { originalError: api, extensions: { http: { status: api.statusCode, headers: new Map(Object.entries(api.headers)) } } });

/**
 * The limits (GRAPHQL_LIMITS) on the operation that runs, as Apollo resolved it. The HTTP handler
 * measures the text it is sent, but Apollo's automatic persisted queries run a text by its hash
 * alone, and with another operationName than the one it was measured with: a cached
 * `query A { __typename } query B { <200 aliases> }` ran B unmeasured (and counted as one request).
 */
function queryLimitsPlugin(limiter: RateLimiter): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operationName, contextValue, response }) {
          const admission = admissionOf(contextValue);
          let cost: number;
          try {
            cost = checkDocument(document, operationName);
          } catch (err) {
            throw err instanceof ApiError ? hookError(err) : err;
          }
          if (!admission || admission.measured) return; // counted by the HTTP handler
          const charge = await chargeCost(limiter, admission.subject, cost);
          for (const [name, value] of Object.entries(charge?.headers ?? {})) response.http.headers.set(name.toLowerCase(), String(value));
          if (charge?.throttled) throw hookError(charge.throttled);
        },
      };
    },
  };
}

/**
 * A costly query counts as several requests (the first was counted on arrival): the limiter's
 * headers for the answer, and the 429 to throw when the extra count goes over a limit.
 */
async function chargeCost(limiter: RateLimiter, subject: string, cost: number): Promise<{ headers: Record<string, string>; throttled?: ApiError } | undefined> {
  const extra = Math.ceil(cost / GRAPHQL_LIMITS.costPerRequest) - 1;
  if (extra <= 0) return undefined;
  const state = await limiter.hit(subject, extra);
  if (state.retryAfter === undefined) return { headers: state.headers };
  const message = `Request was throttled (a GraphQL query of cost ${cost} counts ${extra + 1} requests). Expected available in ${state.retryAfter} seconds.`;
  return { headers: state.headers, throttled: new ApiError(429, 'throttled', message, undefined, { 'retry-after': String(state.retryAfter) }) };
}

/** Signs the file URLs of an answer whose operation carries @signedUrls. */
function signedUrlsPlugin(fileUrls: FileUrls): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, response, contextValue }) {
          if (response.body.kind !== 'single') return;
          response.body.singleResult.data = signedData(fileUrls, operation, response.body.singleResult.data, contextValue);
        },
      };
    },
  };
}

export async function mountGraphQL(
  app: FastifyInstance,
  plugins: FiligranePlugin[],
  container: Container,
  baseUrlOf: (req: FastifyRequest) => string,
  browser: GraphQLBrowserOptions,
): Promise<ApolloServer<GraphQLContext>> {
  const schema = await buildGraphQLSchema(plugins, container);
  const formatError = formatErrorWith(app.log);
  const limiter = container.get<RateLimiter>(TOKENS.RateLimiter);
  const measured = new WeakMap<FastifyRequest, boolean>();
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    formatError,
    // GraphQL over HTTP's GET queries are allowed: GET never runs a mutation (Apollo answers 405),
    // and a POST must be application/json (415 otherwise, below), which no cross-site form can
    // send without a CORS preflight; so Apollo's header-based CSRF check would only block GETs.
    csrfPrevention: false,
    plugins: [fastifyApolloDrainPlugin(app), ApolloServerPluginLandingPageDisabled(), subscriptionsOverWebSocketPlugin(), queryLimitsPlugin(limiter), signedUrlsPlugin(browser.fileUrls)],
    // The CLI stops everything in order on SIGTERM/SIGINT; Apollo's own handler would re-raise the
    // signal and kill the process before the embedded database is closed and its lock released.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  const handler = fastifyApolloHandler(apollo, {
    context: async (req) => {
      const admission: Admission = { subject: rateSubject(req.principal, req.ip), measured: measured.get(req) ?? false };
      return { principal: req.principal, requestId: req.id, baseUrl: baseUrlOf(req), container, loaders: new Map(), [ADMISSION]: admission };
    },
  });
  app.route({
    method: ['GET', 'POST', 'OPTIONS'],
    url: '/graphql',
    // Refusals before execution (credentials, rate limits, cost, body) in GraphQL's shape, not REST's.
    errorHandler: (err, req, reply) => {
      const refusal = graphqlRefusal(err);
      if (refusal.status >= 500) req.log.error({ err }, 'GraphQL request failed');
      reply.code(refusal.status).headers(refusal.headers).type('application/json; charset=utf-8').send(JSON.stringify(refusal.body));
    },
    preHandler: async (req, reply) => {
      // Same credentials as REST: wrong ones are a 401 before any resolver runs.
      if (req.authError) throw req.authError;
      if (Buffer.isBuffer(req.body)) {
        if (!/json/.test(req.headers['content-type'] ?? '')) throw new ApiError(415, 'unsupported_media_type', 'POST /graphql takes application/json.');
        try {
          req.body = req.body.length ? JSON.parse(req.body.toString('utf8')) : undefined;
        } catch (err) {
          throw new ApiError(400, 'parse_error', `JSON parse error: ${(err as Error).message}`);
        }
      }
      if (Array.isArray(req.body)) throw new ApiError(400, 'batch_not_supported', 'Send one GraphQL operation per request (batched operations are not accepted).');
      const params = (req.method === 'GET' ? req.query : req.body) as { query?: unknown; operationName?: unknown; documentId?: unknown; extensions?: unknown } | undefined;
      if (browser.trusted && params && (req.method === 'POST' || params.query !== undefined || params.documentId !== undefined || params.extensions !== undefined)) {
        let extensions = params.extensions;
        if (typeof extensions === 'string') {
          try {
            extensions = JSON.parse(extensions);
          } catch {
            extensions = undefined;
          }
        }
        params.query = browser.trusted.resolve({ ...params, extensions });
        delete params.documentId;
        if (req.method === 'GET') {
          // Apollo reads a GET's parameters from the URL itself.
          const search = new URLSearchParams((req.raw.url ?? '').split('?')[1] ?? '');
          search.delete('documentId');
          search.set('query', params.query as string);
          req.raw.url = `${req.raw.url!.split('?')[0]}?${search}`;
        }
      }
      const cost = checkQuery(params?.query, params?.operationName);
      measured.set(req, cost !== null);
      const charge = cost === null ? undefined : await chargeCost(limiter, rateSubject(req.principal, req.ip), cost);
      if (charge) reply.headers(charge.headers);
      if (charge?.throttled) throw charge.throttled;
    },
    handler: async function (req, reply) {
      const wantsPage = req.method === 'GET' && !(req.query as Record<string, unknown>).query && (req.headers.accept ?? '').includes('text/html');
      if (wantsPage) return reply.type('text/html; charset=utf-8').send(EXPLORER_HTML);
      return handler.call(this, req as never, reply as never);
    },
  });
  mountSubscriptions(app, {
    schema,
    container,
    authentication: browser.authentication,
    limiter,
    originAllowed: browser.originAllowed,
    baseUrlOf: (req) => baseUrlOf({ protocol: 'http', host: req.headers.host ?? '' } as FastifyRequest),
    trusted: browser.trusted,
    fileUrls: browser.fileUrls,
    formatError,
  });
  return apollo;
}
