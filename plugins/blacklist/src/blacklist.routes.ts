import { noContent, ok, pageSchema, type JsonSchema, type RouteSpec } from '@filigrane/core';
import { BlacklistService, parseDomain } from './blacklist.service.js';

const BOTH = ['v3', 'v4'] as const;
const DOMAIN_SCHEMA: JsonSchema = { type: 'object', required: ['url'], properties: { url: { type: 'string', description: 'A domain name' } } };

export const blacklistRoutes: RouteSpec[] = [
  {
    versions: [...BOTH],
    method: 'POST',
    path: '/domains/blacklist/',
    summary: 'Blacklist a domain: 201 when added, 200 when it was already listed',
    requestSchema: DOMAIN_SCHEMA,
    responses: { 200: { schema: DOMAIN_SCHEMA }, 201: { schema: DOMAIN_SCHEMA } },
    async handler(ctx) {
      const { domain, created } = await ctx.container.get(BlacklistService).add(ctx.principal!.accountId, parseDomain(ctx.body));
      return { status: created ? 201 : 200, body: { url: domain } };
    },
  },
  {
    versions: [...BOTH],
    method: 'GET',
    path: '/domains/blacklist/',
    formats: ['csv'],
    responses: { 200: { schema: pageSchema(DOMAIN_SCHEMA, { withCount: false }) } },
    async handler(ctx) {
      const domains = await ctx.container.get(BlacklistService).list(ctx.principal!.accountId);
      // The spec: pagination is not enabled here, next and previous are always null.
      return ok({ next: null, previous: null, results: domains.map((url) => ({ url })) });
    },
  },
  {
    versions: [...BOTH],
    method: 'DELETE',
    path: '/domains/blacklist/',
    accepts: ['json'],
    summary: 'Remove a domain (JSON body {url}): 204, or 404 when it is not listed',
    requestSchema: DOMAIN_SCHEMA,
    responses: { 204: { description: 'Removed' } },
    async handler(ctx) {
      await ctx.container.get(BlacklistService).remove(ctx.principal!.accountId, parseDomain(ctx.body));
      return noContent();
    },
  },
];
