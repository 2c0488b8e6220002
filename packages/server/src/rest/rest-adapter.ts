import { METHODS as httpMethods } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from 'inversify';
import {
  ApiError,
  csvChunks,
  JSON_BODY_LIMIT,
  toCsv,
  queryString,
  rejectNul,
  type ApiVersion,
  type FiligranePlugin,
  type HttpMethod,
  type QueryValue,
  type RouteContext,
  type RouteResponse,
  type RouteSpec,
} from '@filigrane/core';
import { acceptedKinds, mediaType, parseBody } from './body.js';
import './fastify-types.js';
import { isFileRoute } from '../browser/signed-urls.js';

interface MountedRoute {
  spec: RouteSpec;
  version: ApiVersion | null;
}


/** Every full path a route answers on: `/api/<v><path>` per version, or the path itself. */
export function fullPaths(spec: RouteSpec): { path: string; version: ApiVersion | null }[] {
  if (!spec.versions || spec.versions.length === 0) return [{ path: spec.path, version: null }];
  return spec.versions.map((v) => ({ path: `/api/${v}${spec.path}`, version: v }));
}

/**
 * Mounts every plugin's REST routes on Fastify. Routes sharing a path are registered as one
 * Fastify route so that a known path with a wrong method answers 405 with `Allow`.
 */
/** A route's body limit: its own, or small for JSON/form routes and the upload limit for the others. */
export function bodyLimitOf(spec: RouteSpec, uploadLimit: number): number {
  if (spec.bodyLimitBytes !== undefined) return spec.bodyLimitBytes;
  const kinds = acceptedKinds(spec);
  return kinds.includes('binary') || kinds.includes('multipart') ? uploadLimit : Math.min(JSON_BODY_LIMIT, uploadLimit);
}

export function mountRestRoutes(app: FastifyInstance, container: Container, plugins: FiligranePlugin[], baseUrlOf: (req: FastifyRequest) => string, uploadLimit: number): void {
  // Every method Node's parser accepts (TRACE, PROPFIND, QUERY...) reaches the paths below, so a
  // known path answers 405 with Allow to any method it lacks, not 404 (CONNECT never reaches a route).
  for (const method of httpMethods) if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  const routeMethods = app.supportedMethods.filter((m) => m !== 'CONNECT');
  const byPath = new Map<string, Map<string, MountedRoute>>();
  for (const plugin of plugins) {
    for (const spec of plugin.routes ?? []) {
      for (const { path, version } of fullPaths(spec)) {
        const methods = byPath.get(path) ?? new Map<string, MountedRoute>();
        if (methods.has(spec.method)) throw new Error(`route ${spec.method} ${path} is declared twice (plugin "${plugin.id}")`);
        methods.set(spec.method, { spec, version });
        byPath.set(path, methods);
      }
    }
  }

  for (const [path, methods] of byPath) {
    const allow = [...methods.keys(), ...(methods.has('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    app.route({
      method: routeMethods,
      url: path,
      // Fastify reads the body after onRequest (where credentials are checked, see http-server.ts):
      // the limit is per path, the largest of its methods'.
      bodyLimit: Math.max(...[...methods.values()].map((m) => bodyLimitOf(m.spec, uploadLimit))),
      config: {
        declaredMethods: [...methods.keys()],
        authRequired: Object.fromEntries([...methods].map(([method, m]) => [method, m.spec.auth !== 'none'])),
        // A file answer may be fetched with a signed URL instead of credentials (browser/signed-urls.ts).
        signedFiles: [...methods.values()].some((m) => isFileRoute(m.spec)),
      },
      handler: async (req, reply) => {
        if (req.method === 'OPTIONS') return reply.code(200).header('allow', allow).send();
        const mounted = methods.get(req.method === 'HEAD' ? 'GET' : req.method);
        if (!mounted) {
          throw new ApiError(405, 'method_not_allowed', `Method "${req.method}" not allowed.`, undefined, { allow });
        }
        const response = await serve(mounted, req, container, baseUrlOf(req));
        return send(reply, mounted.spec, withLocation(response, baseUrlOf(req)), queryString(req.query as Record<string, QueryValue>, 'format') ?? 'json');
      },
    });
  }
}

async function serve(mounted: MountedRoute, req: FastifyRequest, container: Container, baseUrl: string): Promise<RouteResponse> {
  const { spec, version } = mounted;
  const query = req.query as Record<string, QueryValue>;
  // Every query-string value, path parameter and string of a parsed body, for every route: NUL and
  // unpaired surrogates are refused here. The wildcard (`*`, the media path) is left to its route,
  // which parses the raw path itself (control characters there are 400 invalid_path).
  rejectNul(query);
  const { '*': _wildcard, ...params } = (req.params ?? {}) as Record<string, string>;
  rejectNul(params);
  const format = queryString(query, 'format') ?? 'json';
  if (format !== 'json' && !(spec.formats ?? []).includes(format as 'csv')) {
    throw new ApiError(406, 'not_acceptable', `Format "${format}" is not available here; use format=json${spec.formats?.length ? ' or ' + spec.formats.map((f) => `format=${f}`).join(' or ') : ''}.`);
  }
  if (spec.auth !== 'none') {
    if (req.authError) throw req.authError;
    if (!req.principal) {
      throw new ApiError(401, 'not_authenticated', 'Authentication credentials were not provided.', undefined, { 'www-authenticate': 'Token' });
    }
  }
  const contentType = mediaType(req.headers['content-type']);
  const hasLength = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  const { body, rawBody } = parseBody(spec, req.body as Buffer | undefined, contentType, hasLength, req.headers['content-type']);
  rejectNul(body);
  const ctx: RouteContext = {
    container,
    principal: req.principal,
    version,
    params: req.params as Record<string, string>,
    query,
    body,
    rawBody,
    contentType,
    headers: req.headers,
    requestId: req.id,
    rawPath: (req.raw.url ?? '/').split('?')[0]!,
    url: new URL(req.url, baseUrl),
    baseUrl,
    clientAddress: req.ip,
  };
  return spec.handler(ctx);
}

/**
 * A 201 names what it created (RFC 9110): without a `Location` of its own, the body's `url` when it
 * is a resource of this API (a blacklisted domain's `url` is a domain, a webhook's is the client's).
 */
function withLocation(res: RouteResponse, baseUrl: string): RouteResponse {
  if (res.status !== 201 || Object.keys(res.headers ?? {}).some((h) => h.toLowerCase() === 'location')) return res;
  const url = res.body !== null && typeof res.body === 'object' ? (res.body as { url?: unknown }).url : undefined;
  if (typeof url !== 'string' || !url.startsWith(`${baseUrl}/api/`)) return res;
  return { ...res, headers: { ...res.headers, location: url } };
}

function send(reply: FastifyReply, spec: RouteSpec, res: RouteResponse, format: string): FastifyReply {
  reply.code(res.status);
  if (res.headers) reply.headers(res.headers);
  if (res.csv) {
    const name = res.csv.filename.replace(/[^A-Za-z0-9._-]/g, '_');
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(csvChunks(res.csv), { highWaterMark: 1 }));
  }
  if (res.body === undefined || res.status === 204) return reply.send();
  if (res.body instanceof Readable) return reply.type(res.contentType ?? 'application/octet-stream').send(res.body);
  if (Buffer.isBuffer(res.body)) return reply.type(res.contentType ?? 'application/octet-stream').send(res.body);
  if (format === 'csv') {
    const list = (res.body as Record<string, unknown>)[spec.csvList ?? 'results'];
    const rows = Array.isArray(list) ? (list as Record<string, unknown>[]) : [res.body as Record<string, unknown>];
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${csvFileName(reply)}"`).send(toCsv(rows));
  }
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(res.body));
}

/** A file name for a CSV answer built from a JSON list: the last path segment and the date. */
function csvFileName(reply: FastifyReply): string {
  const segment = (reply.request.url.split('?')[0] ?? '').split('/').filter(Boolean).pop() ?? 'export';
  return `${segment.replace(/[^A-Za-z0-9._-]/g, '_')}-${new Date().toISOString().slice(0, 10)}.csv`;
}
