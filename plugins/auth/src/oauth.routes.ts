import {
  created,
  pageSchema,
  type JsonSchema,
  noContent,
  notFound,
  ok,
  listPage,
  validationError,
  type RouteContext,
  type RouteSpec,
} from '@filigrane/core';
import type { OAuthApplication } from './auth.entities.js';
import { OAuthError, OAuthService } from './oauth.service.js';
import { parseApplicationName } from './oauth-input.js';

const APPLICATION_SCHEMA: JsonSchema = { type: 'object', required: ['id', 'name', 'client_id', 'created'], properties: { id: { type: 'integer' }, name: { type: 'string' }, client_id: { type: 'string' }, created: { type: 'string', format: 'date-time' } } };
const applicationView = (a: OAuthApplication) => ({ id: a.id, name: a.name, client_id: a.clientId, created: a.created.toISOString() });

function applicationId(ctx: RouteContext): number {
  const id = ctx.params.id ?? '';
  if (!/^\d{1,9}$/.test(id)) throw notFound('No such application.');
  return Number(id);
}

function clientCredentials(ctx: RouteContext): { clientId: string; clientSecret: string } {
  const header = ctx.headers.authorization;
  const body = (ctx.body ?? {}) as Record<string, unknown>;
  if (typeof header === 'string' && /^basic\s+/i.test(header)) {
    const decoded = Buffer.from(header.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw new OAuthError(401, 'invalid_client', 'Malformed Basic credentials.', { 'www-authenticate': 'Basic realm="filigrane"' });
    // RFC 6749 2.3.1: both parts are form-urlencoded before base64.
    const part = (s: string) => {
      let value: string;
      try {
        value = decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        throw new OAuthError(400, 'invalid_request', 'Malformed percent-encoding in the Basic credentials.');
      }
      // No client id or secret holds U+0000 (PostgreSQL text cannot): refused before any lookup.
      if (value.includes('\u0000')) throw new OAuthError(401, 'invalid_client', 'Malformed Basic credentials.', { 'www-authenticate': 'Basic realm="filigrane"' });
      return value;
    };
    return { clientId: part(decoded.slice(0, colon)), clientSecret: part(decoded.slice(colon + 1)) };
  }
  if (typeof body.client_id === 'string' && typeof body.client_secret === 'string') {
    return { clientId: body.client_id, clientSecret: body.client_secret };
  }
  throw new OAuthError(401, 'invalid_client', 'Client credentials are required (HTTP Basic).', { 'www-authenticate': 'Basic realm="filigrane"' });
}

export const oauthRoutes: RouteSpec[] = [
  {
    versions: ['v3'],
    method: 'POST',
    path: '/account/oauth/applications/',
    summary: 'Create an OAuth application (client_secret is shown only here)',
    requestSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 255 } } },
    responses: { 201: { schema: { ...APPLICATION_SCHEMA, required: ['id', 'name', 'client_id', 'created', 'client_secret'], properties: { ...(APPLICATION_SCHEMA.properties as object), client_secret: { type: 'string' } } } } },
    async handler(ctx) {
      const name = parseApplicationName(ctx.body);
      const { application, clientSecret } = await ctx.container.get(OAuthService).createApplication(ctx.principal!.accountId, name);
      return created({ ...applicationView(application), client_secret: clientSecret }, `${ctx.baseUrl}/api/${ctx.version}/account/oauth/applications/${application.id}/`);
    },
  },
  {
    versions: ['v3'],
    method: 'GET',
    path: '/account/oauth/applications/',
    responses: { 200: { schema: pageSchema(APPLICATION_SCHEMA, { withCount: false }) } },
    async handler(ctx) {
      const oauth = ctx.container.get(OAuthService);
      return ok(await listPage(ctx, (offset, limit) => oauth.listApplications(ctx.principal!.accountId, offset, limit), applicationView, { withCount: false }));
    },
  },
  {
    versions: ['v3'],
    method: 'GET',
    path: '/account/oauth/applications/:id/',
    responses: { 200: { schema: APPLICATION_SCHEMA } },
    async handler(ctx) {
      const app = await ctx.container.get(OAuthService).getApplication(ctx.principal!.accountId, applicationId(ctx));
      if (!app) throw notFound('No such application.');
      return ok(applicationView(app));
    },
  },
  {
    versions: ['v3'],
    method: 'DELETE',
    path: '/account/oauth/applications/:id/',
    responses: { 204: { description: 'Revoked' } },
    async handler(ctx) {
      if (!(await ctx.container.get(OAuthService).deleteApplication(ctx.principal!.accountId, applicationId(ctx)))) {
        throw notFound('No such application.');
      }
      return noContent();
    },
  },
  {
    method: 'POST',
    path: '/o/token/',
    auth: 'none',
    accepts: ['form', 'json'],
    summary: 'OAuth 2.0 client-credentials grant',
    requestSchema: { type: 'object', required: ['grant_type'], properties: { grant_type: { type: 'string', enum: ['client_credentials'] }, client_id: { type: 'string' }, client_secret: { type: 'string' }, scope: { type: 'string' } } },
    responses: { 200: { schema: { type: 'object', required: ['access_token', 'token_type', 'expires_in'], properties: { access_token: { type: 'string' }, token_type: { type: 'string' }, expires_in: { type: 'integer' }, scope: { type: 'string' } } } } },
    async handler(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      const grant = body.grant_type;
      if (typeof grant !== 'string' || grant === '') {
        throw new OAuthError(400, 'invalid_request', 'The grant_type parameter is required.');
      }
      if (grant !== 'client_credentials') {
        throw new OAuthError(400, 'unsupported_grant_type', `Grant type "${grant}" is not supported; use client_credentials.`);
      }
      const { clientId, clientSecret } = clientCredentials(ctx);
      if (body.scope !== undefined && !String(body.scope).split(' ').every((s) => s === 'openid')) {
        throw new OAuthError(400, 'invalid_scope', 'The only scope available is openid.');
      }
      const token = await ctx.container.get(OAuthService).issueToken(clientId, clientSecret, ctx.clientAddress);
      return ok(token, { 'cache-control': 'no-store', pragma: 'no-cache' });
    },
  },
];

