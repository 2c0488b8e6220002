import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { getOperationAST, GraphQLError, Kind, OperationTypeNode, parse, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import type { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Container } from 'inversify';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError, type GraphQLContext, type Principal } from '@filigrane/core';
import type { RequestAuthentication } from '../auth/request-authentication.js';
import type { FileUrls } from '../browser/file-urls.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.service.js';
import { toApiError } from '../rest/error-mapping.js';
import { validHost } from '../http-server.js';
import { checkDocument } from './query-limits.js';
import { signedData } from './signed-urls.js';
import type { TrustedDocuments } from './trusted-documents.js';

/** Subscriptions one connection may hold at once, and how often its credentials are checked again. */
const MAX_SUBSCRIPTIONS = 20;
const RECHECK_MS = 60_000;

export interface SubscriptionOptions {
  schema: GraphQLSchema;
  container: Container;
  authentication: RequestAuthentication;
  limiter: RateLimiter;
  originAllowed: (origin: string | undefined) => boolean;
  baseUrlOf: (req: IncomingMessage) => string;
  trusted: TrustedDocuments | null;
  /** Signs the file URLs of each event of a subscription that carries @signedUrls, as over HTTP. */
  fileUrls: FileUrls;
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** Milliseconds between credential checks (tests shorten it). */
  recheckMs?: number;
}

interface Connection {
  principal: Principal;
  requestId: string;
  recheck: NodeJS.Timeout;
}

const addressOf = (req: IncomingMessage) => req.socket.remoteAddress ?? '';

/** A page's Origin is its own server's (same host) or one of CORS_ORIGINS. */
function sameOrAllowed(req: IncomingMessage, allowed: (origin: string | undefined) => boolean): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser: it sends no cookie it did not mean to
  try {
    return new URL(origin).host === req.headers.host || allowed(origin);
  } catch {
    return false;
  }
}

/** graphql-ws sends an error as its toJSON(): the same shape as HTTP's errors (formatError). */
const withFormat = (error: GraphQLError, format: SubscriptionOptions['formatError']): GraphQLError => {
  const formatted = format(error.toJSON(), error);
  return Object.assign(error, { toJSON: () => formatted });
};

const asErrors = (err: unknown, format: SubscriptionOptions['formatError']): GraphQLError[] => {
  const api = toApiError(err);
  const error = new GraphQLError(typeof api.details === 'string' ? api.details : api.code, { originalError: api });
  return [withFormat(error, format)];
};

/**
 * GraphQL subscriptions over WebSocket (graphql-ws's `graphql-transport-ws` protocol) on the
 * /graphql path of the HTTP server: same credentials as HTTP (RequestAuthentication), one
 * account's events only, queries and mutations left to HTTP (where rate limits and CSRF rules
 * apply). Events come from the outbox (LIVE_EVENTS), after their transaction committed.
 */
export function mountSubscriptions(app: FastifyInstance, options: SubscriptionOptions): void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const connections = new WeakMap<object, Connection>();
  const recheckMs = options.recheckMs ?? RECHECK_MS;

  const credentialsOf = (ctx: Context<Record<string, unknown>, { request: IncomingMessage; socket: WebSocket }>) => {
    const req = ctx.extra.request;
    return options.authentication.ofSocket(
      { method: 'GET', url: req.url ?? '/graphql', headers: req.headers, address: addressOf(req) },
      ctx.connectionParams ?? undefined,
      sameOrAllowed(req, options.originAllowed),
    );
  };

  useServer<Record<string, unknown>, { request: IncomingMessage; socket: WebSocket }>(
    {
      schema: options.schema,
      connectionInitWaitTimeout: 10_000,
      onConnect: async (ctx) => {
        let principal: Principal | null;
        try {
          principal = await credentialsOf(ctx);
        } catch (err) {
          ctx.extra.socket.close(4401, toApiError(err).code === 'throttled' ? 'Too many failed attempts.' : 'Invalid credentials.');
          return false;
        }
        if (!principal) {
          ctx.extra.socket.close(4401, 'Authentication credentials were not provided (connection_init payload {"authorization": "Token ..."}).');
          return false;
        }
        // A revoked key or an expired token ends the connection within a minute.
        const recheck = setInterval(() => {
          credentialsOf(ctx).then(
            (again) => {
              if (!again || again.accountId !== principal!.accountId) ctx.extra.socket.close(4403, 'Credentials no longer valid.');
            },
            () => ctx.extra.socket.close(4403, 'Credentials no longer valid.'),
          );
        }, recheckMs);
        recheck.unref();
        connections.set(ctx, { principal, requestId: `ws-${Math.random().toString(36).slice(2, 10)}`, recheck });
        return true;
      },
      onClose: (ctx) => {
        const c = connections.get(ctx);
        if (c) clearInterval(c.recheck);
      },
      onSubscribe: async (ctx, _id, payload) => {
        const connection = connections.get(ctx)!;
        try {
          // graphql-ws has already reserved this subscription's id in ctx.subscriptions: it is one of them.
          if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS) throw new ApiError(400, 'too_many_subscriptions', `At most ${MAX_SUBSCRIPTIONS} subscriptions per connection.`);
          const query = options.trusted ? options.trusted.resolve(payload as never) : payload.query;
          let document: DocumentNode;
          try {
            document = parse(query, { maxTokens: 20_000 });
          } catch (err) {
            // As over HTTP: code GRAPHQL_PARSE_FAILED, apiCode graphql_parse_failed (formatError).
            return [withFormat(new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } }), options.formatError)];
          }
          checkDocument(document, payload.operationName);
          const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
          const operation = payload.operationName ? operations.find((o) => o.name?.value === payload.operationName) : operations[0];
          if (operation && operation.operation !== OperationTypeNode.SUBSCRIPTION) {
            throw new ApiError(400, 'operation_not_allowed', 'Only subscriptions run over WebSocket; send queries and mutations by HTTP to /graphql.');
          }
          const state = await options.limiter.hit(`account:${connection.principal.accountId}`);
          if (state.retryAfter !== undefined) throw new ApiError(429, 'throttled', `Request was throttled. Expected available in ${state.retryAfter} seconds.`);
          (payload as { query: string }).query = query;
          return undefined;
        } catch (err) {
          return asErrors(err, options.formatError);
        }
      },
      context: (ctx): GraphQLContext => {
        const connection = connections.get(ctx)!;
        return { principal: connection.principal, requestId: connection.requestId, baseUrl: options.baseUrlOf(ctx.extra.request), container: options.container, loaders: new Map() };
      },
      onNext: (_ctx, _id, _payload, args, result) => {
        const data = signedData(options.fileUrls, getOperationAST(args.document, args.operationName), result.data, args.contextValue as GraphQLContext);
        if (!result.errors?.length) return data === result.data ? result : { ...result, data };
        return { ...result, data, errors: result.errors.map((e) => withFormat(e, options.formatError)) };
      },
      // graphql-ws's own validation errors carry no code: GRAPHQL_VALIDATION_FAILED, as Apollo says over HTTP.
      onError: (_ctx, _id, _payload, errors) =>
        errors.map((e) => {
          const validation = !e.path && !e.originalError && e.extensions?.code === undefined;
          const formatted = e.toJSON();
          return options.formatError(validation ? { ...formatted, extensions: { ...formatted.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } } : formatted, e);
        }),
    },
    wss,
  );

  // Refusals before the upgrade carry the API's error body, as every other answer does.
  const refuse = (socket: Duplex, error: ApiError, headers = '') => {
    const body = JSON.stringify(error.toBody());
    socket.end(`HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\nConnection: close\r\n${headers}Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  // A malformed handshake (key, version, protocol list): ws's own answer was text/html.
  wss.on('wsClientError', (err: Error, socket: Duplex) => {
    const method = err.message === 'Invalid HTTP method';
    refuse(socket, new ApiError(method ? 405 : 400, method ? 'method_not_allowed' : 'invalid_handshake', `WebSocket handshake refused: ${err.message}.`), method ? 'Allow: GET\r\n' : /Version/.test(err.message) ? 'Sec-WebSocket-Version: 13, 8\r\n' : '');
  });
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    if (path !== '/graphql') return refuse(socket, new ApiError(404, 'not_found', 'WebSocket connections are served at /graphql only.'));
    if (req.headers.host && !validHost('http', req.headers.host)) return refuse(socket, new ApiError(400, 'invalid_host', 'The Host header is not a host name or address with an optional port.'));
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  app.addHook('onClose', async () => {
    for (const client of wss.clients) client.close(1001, 'Server shutting down.');
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}
