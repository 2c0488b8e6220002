import { accepted, ApiError, badRequest, file, notFound, ok, streamed, type RouteContext, type RouteSpec } from '@filigrane/core';
import { ApiKeyService, requireTokenScheme } from '@filigrane/plugin-auth';
import { AccountDeletionService } from './account-deletion.service.js';
import { AccountService } from './account.service.js';
import { ACCOUNT_SCHEMA, DOWNLOAD_SCHEMA, SETTINGS_SCHEMA, SETTINGS_UPDATE_SCHEMA } from './account.schemas.js';
import { DownloadService } from './download.service.js';
import { parseSettingsUpdate, SettingsService } from './settings.service.js';

const BOTH = ['v3', 'v4'] as const;
const me = (ctx: RouteContext) => ctx.principal!.accountId;
const downloadBase = (ctx: RouteContext) => `/api/${ctx.version}/account/download`;

/** `{"username": "<own username>"}`: deleting an account is irreversible, so the caller names it (see api-decisions.md). */
const DELETE_SCHEMA = { type: 'object', required: ['username'], additionalProperties: false, properties: { username: { type: 'string' } } };
const DELETION_SCHEMA = {
  type: 'object',
  required: ['username', 'status', 'requested'],
  properties: { username: { type: 'string' }, status: { type: 'string', enum: ['deleting'] }, requested: { type: 'string', format: 'date-time' } },
};

export const accountRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/account/',
    accepts: ['json'],
    summary: 'Deletes the account and everything it stored (API key or console session, not a bearer token; body {"username": <own username>}); 202, done by a job',
    requestSchema: DELETE_SCHEMA,
    responses: { 202: { schema: DELETION_SCHEMA } },
    async handler(ctx) {
      const request = await ctx.container.get(AccountDeletionService).requestSelf(ctx.principal!, (ctx.body as { username?: unknown } | undefined)?.username);
      return accepted({ username: request.username, status: 'deleting', requested: request.requested.toISOString() });
    },
  },
  {
    versions: [...BOTH],
    method: 'GET',
    path: '/account/',
    responses: { 200: { schema: ACCOUNT_SCHEMA } },
    handler: async (ctx) => ok(await ctx.container.get(AccountService).view(me(ctx))),
  },
  {
    versions: [...BOTH],
    method: 'GET',
    path: '/account/settings/',
    responses: { 200: { schema: SETTINGS_SCHEMA } },
    handler: async (ctx) => ok(await ctx.container.get(SettingsService).get(me(ctx))),
  },
  {
    versions: [...BOTH],
    method: 'POST',
    path: '/account/settings/',
    summary: 'Partial update of lang, notifications and notif_site_countries',
    requestSchema: SETTINGS_UPDATE_SCHEMA,
    responses: { 200: { schema: SETTINGS_SCHEMA } },
    handler: async (ctx) => ok(await ctx.container.get(SettingsService).update(me(ctx), parseSettingsUpdate(ctx.body))),
  },
  {
    versions: [...BOTH],
    method: 'GET',
    path: '/account/settings/api_key/',
    summary: 'The account API key, as shown in the account settings (API key or console session, not a bearer token)',
    responses: { 200: { schema: { type: 'object', required: ['api_key'], properties: { api_key: { type: 'string' } } } } },
    async handler(ctx) {
      requireTokenScheme(ctx.principal!);
      return ok({ api_key: await ctx.container.get(ApiKeyService).reveal(me(ctx)) });
    },
  },
  {
    versions: [...BOTH],
    method: 'POST',
    path: '/account/settings/api_key/',
    accepts: ['none', 'json'],
    summary: 'Rotates the API key: a new key is returned and the old one stops working at once (API key or console session, not a bearer token)',
    responses: { 200: { schema: { type: 'object', required: ['api_key'], properties: { api_key: { type: 'string' } } } } },
    async handler(ctx) {
      requireTokenScheme(ctx.principal!);
      const body = ctx.body;
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0)) {
        throw badRequest('invalid', 'POST /account/settings/api_key/ takes no fields (an empty body or {}).');
      }
      return ok({ api_key: await ctx.container.get(ApiKeyService).rotate(me(ctx)) });
    },
  },
  {
    versions: [...BOTH],
    method: 'GET',
    path: '/account/download/',
    responses: { 200: { schema: DOWNLOAD_SCHEMA } },
    async handler(ctx) {
      const downloads = ctx.container.get(DownloadService);
      const base = downloadBase(ctx);
      const software: Record<string, string> = {};
      for (const name of await downloads.binaries()) software[name] = `${base}/software/${encodeURIComponent(name)}`;
      // While the first start builds the tool, `building` names it (see docs/api-decisions.md).
      const building = await downloads.building();
      return ok({ version: downloads.version(), key: { 'public_key.der': `${base}/public_key.der` }, software, ...(building.length ? { building } : {}) });
    },
  },
  {
    versions: [...BOTH],
    method: 'GET',
    path: '/account/download/public_key.der',
    responses: { 200: { files: ['application/x-x509-ca-cert'] } },
    handler: async (ctx) => file(await ctx.container.get(AccountService).publicKey(me(ctx)), 'application/x-x509-ca-cert', 'public_key.der'),
  },
  {
    versions: [...BOTH],
    method: 'GET',
    path: '/account/download/software/:name',
    responses: { 200: { files: ['application/octet-stream'] } },
    async handler(ctx) {
      const downloads = ctx.container.get(DownloadService);
      const data = await downloads.binary(ctx.params.name ?? '');
      if (!data && (await downloads.building()).includes(ctx.params.name ?? '')) {
        throw new ApiError(503, 'tool_building', 'The offline tool is being built (it takes about a minute after the first start): try again shortly.');
      }
      if (!data) throw notFound('No such file.');
      return streamed(data.stream, data.size, 'application/octet-stream', ctx.params.name);
    },
  },
];
