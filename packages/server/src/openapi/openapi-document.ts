import { ERROR_BODY_SCHEMA, FILTER_OPERATORS, type BodyKind, type FilterFields, type FiligranePlugin, type JsonSchema, type RouteSpec } from '@filigrane/core';
import { fullPaths } from '../rest/rest-adapter.js';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_REF } } });

const LOCATION_HEADER = { schema: { type: 'string', format: 'uri' }, description: 'URL of the created resource (absent when it has none of its own, e.g. a blacklisted domain)' };

/** `/media/:home/*` -> `/media/{home}/{path}`, and the names of its parameters. */
export function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path
    .replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
      params.push(name);
      return `{${name}}`;
    })
    .replace(/\*$/, () => {
      params.push('path');
      return '{path}';
    });
  return { path: converted, params };
}

const CONTENT_TYPES: Record<Exclude<BodyKind, 'none'>, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
  binary: 'application/octet-stream',
};

function requestBody(spec: RouteSpec): Operation | undefined {
  const accepts = spec.accepts ?? (['POST', 'PUT', 'PATCH'].includes(spec.method) ? ['json'] : ['none']);
  const kinds = accepts.filter((k): k is Exclude<BodyKind, 'none'> => k !== 'none');
  if (kinds.length === 0) return undefined;
  const content: Record<string, { schema: JsonSchema }> = {};
  for (const kind of kinds) {
    if (kind === 'binary') {
      for (const type of spec.binaryTypes ?? ['application/octet-stream']) content[type] = { schema: { type: 'string', contentMediaType: type } };
    } else {
      content[CONTENT_TYPES[kind]] = { schema: spec.requestSchema ?? { type: 'object' } };
    }
  }
  return { required: !accepts.includes('none'), content };
}

function responses(spec: RouteSpec): Operation {
  const out: Operation = {};
  const formats = ['json', ...(spec.formats ?? [])];
  const declared = Object.entries(spec.responses ?? {});
  if (declared.length === 0) {
    // Not described yet: a generic success, so the route still appears with the error body.
    out['2XX'] = { description: 'Success (shape not described in the route spec)', content: { 'application/json': { schema: {} } } };
  }
  for (const [status, r] of declared) {
    const content: Record<string, unknown> = r.files
      ? Object.fromEntries(r.files.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]))
      : { 'application/json': { schema: r.schema ?? {} } };
    if (formats.includes('csv')) content['text/csv'] = { schema: { type: 'string' } };
    out[status] = { description: r.description ?? (status === '201' ? 'Created' : 'Success'), ...(Number(status) === 204 ? {} : { content }), ...(status === '201' ? { headers: { Location: LOCATION_HEADER } } : {}) };
  }
  if (spec.method === 'DELETE' && !out['204'] && declared.length === 0) out['204'] = { description: 'Deleted' };
  out['400'] = errorResponse('Invalid request (the error body names the fields)');
  if (spec.auth !== 'none') {
    out['401'] = errorResponse('Credentials missing or wrong');
    out['403'] = errorResponse('Not enough permission');
  }
  out['404'] = errorResponse('Resource not found');
  out['429'] = { ...errorResponse('Too many requests'), headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' } } };
  out['4XX'] = errorResponse('Other client error (405, 406, 409, 411, 413, 415, 422...)');
  out['5XX'] = errorResponse('Server problem; retry later');
  return out;
}

function parameters(spec: RouteSpec, pathParams: string[]): Operation[] {
  const params: Operation[] = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    ...(name === 'path' && spec.path.endsWith('*') ? { description: 'The rest of the path (may contain slashes)' } : {}),
  }));
  for (const [name, schema] of Object.entries(spec.query ?? {})) {
    const { description, ...rest } = schema as { description?: string };
    params.push({ name, in: 'query', required: false, schema: rest, ...(description ? { description } : {}) });
  }
  if (spec.formats?.length && !spec.query?.format) {
    params.push({ name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', ...spec.formats] } });
  }
  return params;
}

/**
 * The OpenAPI 3.1 document of every REST route the given plugins mount, built from their route
 * specs: path and query parameters, request bodies, response schemas where declared (a generic
 * success otherwise), the error body on every operation, and the two authentication schemes.
 */
/** `x-filters`: each filter field with its type and operators (`eq` is `field=v`, `ne` `!field=v`, others `field__op=v`). */
function filterDoc(fields: FilterFields): Record<string, { type: string; operators: string[] }> {
  return Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, { type: f.type, operators: FILTER_OPERATORS[f.type] }]));
}

export function buildOpenApi(plugins: FiligranePlugin[], version: string): OpenApiDocument {
  const paths: Record<string, Record<string, Operation>> = {};
  const operationIds = new Set<string>();
  for (const plugin of plugins) {
    for (const spec of plugin.routes ?? []) {
      for (const { path: full } of fullPaths(spec)) {
        const { path, params } = openApiPath(full);
        let operationId = `${spec.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
        while (operationIds.has(operationId)) operationId += '_';
        operationIds.add(operationId);
        const body = requestBody(spec);
        const params_ = parameters(spec, params);
        (paths[path] ??= {})[spec.method.toLowerCase()] = {
          operationId,
          tags: spec.tags ?? [plugin.id],
          ...(spec.summary ? { summary: spec.summary } : {}),
          ...(spec.description ? { description: spec.description } : {}),
          ...(params_.length ? { parameters: params_ } : {}),
          ...(spec.filters ? { 'x-filters': filterDoc(spec.filters) } : {}),
          ...(body ? { requestBody: body } : {}),
          responses: responses(spec),
          security: spec.auth === 'none' ? [] : [{ ApiKey: [] }, { OAuth2: [] }],
        };
      }
    }
  }
  paths['/graphql'] = {
    post: {
      operationId: 'graphql',
      tags: ['graphql'],
      summary: 'The GraphQL API (schema: `filigrane schema`)',
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['query'], properties: { query: { type: 'string' }, variables: { type: 'object' }, operationName: { type: 'string' } } } } },
      },
      responses: { 200: { description: 'GraphQL result (errors carry extensions.status_code and code)', content: { 'application/json': { schema: { type: 'object' } } } }, '4XX': errorResponse('Client error') },
      security: [{ ApiKey: [] }, { OAuth2: [] }],
    },
    get: {
      operationId: 'graphqlGet',
      tags: ['graphql'],
      summary: 'GraphQL queries over GET (and the landing page)',
      parameters: [{ name: 'query', in: 'query', required: false, schema: { type: 'string' } }],
      responses: { 200: { description: 'GraphQL result', content: { 'application/json': { schema: { type: 'object' } } } }, '4XX': errorResponse('Client error') },
      security: [{ ApiKey: [] }, { OAuth2: [] }],
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Filigrane API',
      version,
      description: 'Media watermark registration and tracking. Errors use one body (`status_code`, `code`, `details`, `errors`). Every response carries X-Request-Id and the X-RateLimit-* headers.',
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: ERROR_BODY_SCHEMA },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Authorization: Token <API_KEY>` (the key of the account settings)' },
        OAuth2: {
          type: 'oauth2',
          description: 'Client-credentials grant; send `Authorization: Bearer <ACCESS_TOKEN>` (valid 3600 s)',
          flows: { clientCredentials: { tokenUrl: '/o/token/', scopes: {} } },
        },
      },
    },
  };
}
