import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HTTPMethods } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Container } from 'inversify';
import { ApiError, TOKENS } from '@filigrane/core';
import type { GatewayConfig } from './config.js';
import { rateSubject, type RateLimiter } from './rate-limit/rate-limiter.service.js';
import { toApiError } from './rest/error-mapping.js';
import { requestIdFor } from './rest/request-id.js';
import { answerClientError } from './rest/client-errors.js';
import './rest/fastify-types.js';
import type { RequestAuthentication } from './auth/request-authentication.js';
import { registerCors } from './browser/cors.js';

/** The base URL links are built on: PUBLIC_URL when configured, else what the client called. */
export function baseUrlResolver(config: GatewayConfig): (req: FastifyRequest) => string {
  return (req) => config.publicUrl ?? `${req.protocol}://${req.host || `${config.host}:${config.port}`}`;
}

/**
 * A Host header (or a trusted proxy's X-Forwarded-Host and -Proto) that URLs can be built on: a name or
 * address with an optional port, nothing else. Links, `ctx.url` and GraphQL's request URL are built on
 * it, so anything else (`[::1`, `a b`, `x:99999`, `x/y`) was a TypeError, a 500 on every route.
 */
export function validHost(protocol: string | undefined, host: string): boolean {
  try {
    const url = new URL(`${protocol || 'http'}://${host}/`);
    return url.hostname !== '' && !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash;
  } catch {
    return false;
  }
}

/** Wrong credentials anywhere, or none where the route requires them: the error, before any body is read. */
function rejectUnauthenticated(req: FastifyRequest): void {
  const required = (req.routeOptions.config as { authRequired?: Record<string, boolean> } | undefined)?.authRequired;
  const needed = required?.[req.method === 'HEAD' ? 'GET' : req.method];
  // A throttled address is answered 429 everywhere, whatever the route.
  if (req.authError && (needed !== undefined || req.url.startsWith('/graphql') || req.authError.statusCode === 429)) throw req.authError;
  if (needed && !req.principal) {
    throw new ApiError(401, 'not_authenticated', 'Authentication credentials were not provided.', undefined, { 'www-authenticate': 'Token' });
  }
}

/** proxy-addr asks about each address from the socket (hop 0) leftwards: trust the first n. */
const trustHops = (n: number) => (_address: string, hop: number) => hop < n;

export interface MountedHttpRoute {
  method: string;
  url: string;
}
const mounted = new WeakMap<FastifyInstance, MountedHttpRoute[]>();

/** Every method and URL Fastify has mounted (REST, GraphQL, docs), as registered. */
export function mountedRoutes(app: FastifyInstance): MountedHttpRoute[] {
  return [...(mounted.get(app) ?? [])];
}

/**
 * Fastify with the spec's conventions applied to every response, known route or not:
 * X-Request-Id, credentials, rate-limit headers and 429, raw bodies (routes parse them),
 * and the error body for every error including the framework's own.
 */
export async function createHttpServer(config: GatewayConfig, container: Container, logger: boolean, authentication: RequestAuthentication): Promise<{ app: FastifyInstance; originAllowed: (origin: string | undefined) => boolean }> {
  const app = Fastify({
    logger: logger ? { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]'] } : false,
    bodyLimit: config.bodyLimitBytes,
    // Fastify turns Node's request timeout off (0): a body that never arrives in full would hold its
    // connection and buffer forever. Node 20 reads it when the server is created (Fastify's own
    // option is assigned later, too late), so it goes in the server options; checked every
    // connectionsCheckingInterval.
    requestTimeout: config.requestTimeoutSeconds * 1000,
    http: {
      // An HTTP/1.1 request without Host is refused by the onRequest hook, with the error body (Node's own 400 has none).
      requireHostHeader: false,
      requestTimeout: config.requestTimeoutSeconds * 1000,
      connectionsCheckingInterval: Math.min(30_000, Math.max(1000, (config.requestTimeoutSeconds * 1000) / 4)),
    },
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2000 },
    // A hop count or the proxies' addresses (config.ts): the client's own X-Forwarded-For entries are never believed.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // Errors Fastify raises before routing (malformed URL, bad Content-Type header) get our body too.
    // They run before the onRequest hook, so the request id is set here too.
    frameworkErrors: (err, req, reply) => {
      const api = toApiError(err);
      void (reply as FastifyReply).code(api.statusCode).header('x-request-id', req.id).type('application/json; charset=utf-8').send(JSON.stringify(api.toBody()));
    },
    // Errors of Node's HTTP parser, before Fastify sees a request (431, malformed request, bad Content-Length).
    clientErrorHandler: answerClientError,
  });
  // An Expect other than 100-continue: 417 with the error body (Node's own answer has none).
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(new ApiError(417, 'expectation_failed', `Expect: ${String(req.headers.expect).slice(0, 100)} is not supported (only 100-continue).`).toBody());
    res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': requestIdFor(undefined), connection: 'close' }).end(body);
  });
  const routes: MountedHttpRoute[] = [];
  mounted.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method: String(method), url: route.url });
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('authError', null);

  // Bodies stay raw here; each route parses what it accepts (JSON, form, binary) or answers 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const limiter = container.get<RateLimiter>(TOKENS.RateLimiter);
  // First, so that preflights are answered before credentials are read and errors carry CORS headers.
  const originAllowed = await registerCors(app, config.corsOrigins);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // No Host at all falls back to the configured address (baseUrlResolver), in HTTP/1.0 only: HTTP/1.1 requires one.
    if (req.host ? !validHost(req.protocol, req.host) : req.raw.httpVersion !== '1.0') {
      throw new ApiError(400, 'invalid_host', req.host ? 'The Host header (or a trusted proxy\'s X-Forwarded-Host / -Proto) is not a host name or address with an optional port.' : 'An HTTP/1.1 request needs a Host header.');
    }
    try {
      const signedFiles = (req.routeOptions.config as { signedFiles?: boolean } | undefined)?.signedFiles ?? false;
      req.principal = await authentication.ofHttp({ method: req.method, url: req.url, headers: req.headers, address: req.ip }, { signedFiles });
    } catch (err) {
      req.authError = toApiError(err);
    }
    const state = await limiter.hit(rateSubject(req.principal, req.ip));
    reply.headers(state.headers);
    if (state.retryAfter !== undefined) {
      throw new ApiError(429, 'throttled', `Request was throttled. Expected available in ${state.retryAfter} seconds.`, undefined, {
        'retry-after': String(state.retryAfter),
      });
    }
    // Refuse before the body is read: a stranger cannot make us buffer 64 MiB.
    rejectUnauthenticated(req);
  });

  app.setErrorHandler((err, req, reply) => {
    const api = toApiError(err);
    if (api.statusCode >= 500) req.log.error({ err }, 'request failed');
    reply.code(api.statusCode).headers(api.headers).type('application/json; charset=utf-8').send(JSON.stringify(api.toBody()));
  });

  app.setNotFoundHandler((req, reply) => {
    const version = /^\/api\/(v\d+)(\/|$)/.exec(req.url)?.[1];
    const api =
      version === 'v1'
        ? new ApiError(410, 'version_removed', 'API v1 has been removed; use /api/v4/ (or /api/v3/).')
        : version === 'v2'
          ? new ApiError(501, 'version_not_implemented', 'API v2 is not served by Filigrane; use /api/v4/ (or /api/v3/), which keep its resources.')
          : notFoundOrNotAllowed(app, req.method, req.url.split('?')[0]!);
    reply.code(api.statusCode).headers(api.headers).type('application/json; charset=utf-8').send(JSON.stringify(api.toBody()));
  });
  return { app, originAllowed };
}

/**
 * 404, or 405 with `Allow` when the path is served with other methods: REST routes answer that
 * themselves; this covers the paths mounted outside them (`/graphql`, `/metrics`, the console).
 */
function notFoundOrNotAllowed(app: FastifyInstance, method: string, path: string): ApiError {
  const allowed = app.supportedMethods.filter((m) => m !== method && app.hasRoute({ method: m as HTTPMethods, url: path }));
  if (!allowed.length) return new ApiError(404, 'not_found', `No resource at ${method} ${path}.`);
  if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
  return new ApiError(405, 'method_not_allowed', `Method "${method}" not allowed.`, undefined, { allow: allowed.join(', ') });
}
