import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerErrorCode, ApolloServerValidationErrorCode } from '@apollo/server/errors';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { DirectiveLocation, GraphQLDirective, Kind, specifiedDirectives, type GraphQLFormattedError } from 'graphql';
import type { Container } from 'inversify';
import { buildSchema, type MiddlewareFn, type NonEmptyArray } from 'type-graphql';
import { ApiError, rejectNul, TOKENS, type FiligranePlugin, type GraphQLContext } from '@filigrane/core';
import type { RateLimiter } from '../rate-limit/rate-limiter.service.js';
import { checkQuery, GRAPHQL_LIMITS } from './query-limits.js';
import { toApiError } from '../rest/error-mapping.js';
import { EXPLORER_HTML } from './explorer.js';
import type { RequestAuthentication } from '../auth/request-authentication.js';
import type { FileUrls } from '../browser/file-urls.js';
import { mountSubscriptions } from './subscriptions.js';
import type { TrustedDocuments } from './trusted-documents.js';

/** `query Dashboard @signedUrls { ... }`: every file URL in the answer comes signed, for <img> and links. */
export const SIGNED_URLS_DIRECTIVE = new GraphQLDirective({
  name: 'signedUrls',
  description: 'Every file URL of this service in the answer (thumbnails, images, streams, artifacts) comes signed: openable without an Authorization header until it expires (SIGNED_URL_SECONDS).',
  locations: [DirectiveLocation.QUERY, DirectiveLocation.SUBSCRIPTION],
});

/** Every argument of every field, inline or from variables, after coercion: NUL is refused as in REST. */
const refuseNulArguments: MiddlewareFn = ({ args }, next) => {
  rejectNul(args);
  return next();
};

/** Builds one schema from every plugin's resolvers; resolvers come from the DI container. */
export async function buildGraphQLSchema(plugins: FiligranePlugin[], container: Container) {
  // The gateway's own resolvers (subscriptions, signed URLs) come with its built-in browser plugin.
  const resolvers = plugins.flatMap((p) => p.resolvers ?? []);
  if (resolvers.length === 0) throw new Error('no plugin contributes GraphQL resolvers');
  return buildSchema({
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
}

/** Apollo's own refusals (syntax, validation, variables that do not coerce): the client's fault, said as they are. */
const APOLLO_CLIENT_CODES = new Set<unknown>([...Object.values(ApolloServerErrorCode), ...Object.values(ApolloServerValidationErrorCode)].filter((c) => c !== ApolloServerErrorCode.INTERNAL_SERVER_ERROR));

/**
 * Errors carry the same code and status as the REST error body, in `extensions`; 500s are logged like REST's.
 * Apollo wraps its own refusals with the GraphQLError as `originalError`: they keep Apollo's code with a 400,
 * rather than reaching toApiError as unknown (500) errors. graphql-js's errors without an original are the
 * request's (too many variable errors) unless they sit on a result path (a null for a non-null field: ours).
 */
export const formatErrorWith = (log: FastifyBaseLogger) => (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
  const original = (error as { originalError?: unknown }).originalError;
  const code = formatted.extensions?.code;
  if (!(original instanceof ApiError) && (original ? APOLLO_CLIENT_CODES.has(code) : !formatted.path)) {
    const details = formatted.message;
    return { message: details, locations: formatted.locations, extensions: { code: APOLLO_CLIENT_CODES.has(code) ? code : ApolloServerErrorCode.BAD_USER_INPUT, status_code: 400, details } };
  }
  const api = toApiError(original);
  if (api.statusCode >= 500) log.error({ err: original ?? formatted, path: formatted.path }, 'GraphQL resolver failed');
  return {
    message: typeof api.details === 'string' ? api.details : api.code,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: api.code, status_code: api.statusCode, details: api.details },
  };
};

export interface GraphQLBrowserOptions {
  authentication: RequestAuthentication;
  originAllowed: (origin: string | undefined) => boolean;
  fileUrls: FileUrls;
  trusted: TrustedDocuments | null;
}

/** Signs the file URLs of an answer whose operation carries @signedUrls. */
function signedUrlsPlugin(fileUrls: FileUrls): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, response, contextValue }) {
          const signed = operation?.directives?.some((d) => d.kind === Kind.DIRECTIVE && d.name.value === SIGNED_URLS_DIRECTIVE.name);
          if (!signed || !contextValue.principal || response.body.kind !== 'single' || !response.body.singleResult.data) return;
          response.body.singleResult.data = fileUrls.signAll(response.body.singleResult.data, contextValue.baseUrl, contextValue.principal.accountId);
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
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    formatError,
    // GraphQL over HTTP's GET queries are allowed: GET never runs a mutation (Apollo answers 405),
    // and a POST must be application/json (415 otherwise, below), which no cross-site form can
    // send without a CORS preflight; so Apollo's header-based CSRF check would only block GETs.
    csrfPrevention: false,
    plugins: [fastifyApolloDrainPlugin(app), ApolloServerPluginLandingPageDisabled(), signedUrlsPlugin(browser.fileUrls)],
    // The CLI stops everything in order on SIGTERM/SIGINT; Apollo's own handler would re-raise the
    // signal and kill the process before the embedded database is closed and its lock released.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  const limiter = container.get<RateLimiter>(TOKENS.RateLimiter);
  const handler = fastifyApolloHandler(apollo, {
    context: async (req) => ({ principal: req.principal, requestId: req.id, baseUrl: baseUrlOf(req), container }),
  });
  app.route({
    method: ['GET', 'POST', 'OPTIONS'],
    url: '/graphql',
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
      // The request was counted once on arrival; a costly query counts as several.
      const extra = cost === null ? 0 : Math.ceil(cost / GRAPHQL_LIMITS.costPerRequest) - 1;
      if (extra > 0) {
        const subject = req.principal ? `account:${req.principal.accountId}` : `ip:${req.ip}`;
        const state = await limiter.hit(subject, extra);
        reply.headers(state.headers);
        if (state.retryAfter !== undefined) {
          throw new ApiError(429, 'throttled', `Request was throttled (a GraphQL query of cost ${cost} counts ${extra + 1} requests). Expected available in ${state.retryAfter} seconds.`, undefined, {
            'retry-after': String(state.retryAfter),
          });
        }
      }
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
    formatError,
  });
  return apollo;
}
