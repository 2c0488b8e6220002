import { accepted, ok, parsePage, pageEnvelope, pageSchema, streamed, notFound, validationError, type JsonSchema, type RouteContext, type RouteSpec } from '@filigrane/plugin-api';
import type { EvidencePack } from './evidence.entities.js';
import { EvidencePackService, MAX_MATCHES } from './evidence.service.js';
import { SigningKeyService } from './signing-key.service.js';

const tags = ['evidence'];
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const dateTime = { type: 'string', format: 'date-time' };

export const PACK_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'status', 'matches', 'automatic', 'created', 'completed', 'sha256', 'size', 'download', 'error', 'contents'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    url: { type: 'string', format: 'uri' },
    status: { type: 'string', enum: ['pending', 'complete', 'failed'] },
    matches: { type: 'array', items: { type: 'string' }, description: 'v4 match ids' },
    automatic: { type: 'boolean', description: 'Captured because the account asks for a pack of every new match' },
    created: dateTime,
    completed: nullable(dateTime),
    sha256: nullable({ type: 'string', description: 'SHA-256 (hex) of the WACZ file' }),
    size: nullable({ type: 'integer', description: 'Bytes of the WACZ file' }),
    download: nullable({ type: 'string', format: 'uri', description: 'The WACZ file (application/wacz), once complete' }),
    error: nullable({ type: 'string' }),
    contents: {
      type: 'object',
      description: 'What the pack holds: screenshots (or why none), crawl records, captured resources, the time stamp (or why none), the signing key',
      properties: {
        screenshots: { type: 'integer' },
        screenshot_missing: nullable({ type: 'string' }),
        crawl_records: { type: 'integer' },
        captured_resources: { type: 'integer' },
        time_stamp: nullable({ type: 'object', properties: { time: dateTime, authority: { type: 'string' } } }),
        time_stamp_missing: nullable({ type: 'string' }),
        key_id: nullable({ type: 'string' }),
      },
    },
  },
};

const KEYS_SCHEMA: JsonSchema = pageSchema({
  type: 'object',
  required: ['id', 'algorithm', 'public_key', 'created'],
  properties: { id: { type: 'string' }, algorithm: { type: 'string' }, public_key: { type: 'string', description: 'PEM (SubjectPublicKeyInfo)' }, created: dateTime },
});

const SETTINGS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { auto_capture: { type: 'boolean', description: 'Capture an evidence pack of every match when it is first recorded' } },
};

export function packView(p: EvidencePack, baseUrl: string): Record<string, unknown> {
  const s = p.summary as { screenshots?: number; screenshotMissing?: string | null; crawlRecords?: number; capturedResources?: number; timeStamp?: { genTime: string; authority: string } | null; timeStampMissing?: string | null; keyId?: string };
  const url = `${baseUrl}/api/v4/evidence/${p.id}/`;
  return {
    id: p.id,
    url,
    status: p.status,
    matches: p.matchIds,
    automatic: p.automatic,
    created: p.created.toISOString(),
    completed: p.completed?.toISOString() ?? null,
    sha256: p.sha256,
    size: p.size,
    download: p.status === 'complete' ? `${url}download` : null,
    error: p.error,
    contents: {
      screenshots: s.screenshots ?? 0,
      screenshot_missing: s.screenshotMissing ?? null,
      crawl_records: s.crawlRecords ?? 0,
      captured_resources: s.capturedResources ?? 0,
      time_stamp: s.timeStamp ? { time: s.timeStamp.genTime, authority: s.timeStamp.authority } : null,
      time_stamp_missing: s.timeStampMissing ?? null,
      key_id: s.keyId ?? null,
    },
  };
}

const service = (ctx: RouteContext) => ctx.container.get(EvidencePackService);

async function packOf(ctx: RouteContext): Promise<EvidencePack> {
  const pack = await service(ctx).row(ctx.principal!.accountId, ctx.params.id ?? '');
  if (!pack) throw notFound('No such evidence pack.');
  return pack;
}

export const evidenceRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'POST',
    path: '/evidence/',
    tags,
    summary: `Ask for an evidence pack of 1 to ${MAX_MATCHES} matches: 202 with the pack (status pending); a job captures, signs and time-stamps it`,
    requestSchema: {
      type: 'object',
      required: ['matches'],
      additionalProperties: false,
      properties: { matches: { type: 'array', minItems: 1, maxItems: MAX_MATCHES, items: { type: 'string' }, description: 'v4 match ids' } },
    },
    responses: { 202: { schema: PACK_SCHEMA } },
    async handler(ctx) {
      const body = ctx.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw validationError([{ field: 'non_field_errors', code: 'invalid', details: 'Expected a JSON object with "matches".' }]);
      }
      const extra = Object.keys(body).filter((k) => k !== 'matches');
      if (extra.length) {
        throw validationError(extra.map((k) => ({ field: k.slice(0, 100), code: 'unknown_field', details: `Unknown field "${k.slice(0, 100)}".` })));
      }
      const { id } = await service(ctx).capture(ctx.principal!.accountId, (body as { matches?: string[] }).matches as string[], ctx.baseUrl);
      const pack = await service(ctx).row(ctx.principal!.accountId, id);
      return accepted(packView(pack!, ctx.baseUrl));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/evidence/',
    tags,
    summary: "The account's evidence packs, newest first",
    responses: { 200: { schema: pageSchema(PACK_SCHEMA) } },
    async handler(ctx) {
      const page = parsePage(ctx);
      const [rows, total] = await service(ctx).list(ctx.principal!.accountId, page.offset, page.pageSize);
      return ok(pageEnvelope(ctx, page, total, rows.map((p) => packView(p, ctx.baseUrl))));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/evidence/keys/',
    auth: 'none',
    tags,
    summary: 'The public keys that sign evidence packs (no authentication): check a pack with `filigrane evidence verify --key` or openssl',
    responses: { 200: { schema: KEYS_SCHEMA } },
    async handler(ctx) {
      const page = parsePage(ctx);
      const keys = await ctx.container.get(SigningKeyService).publicKeys();
      const views = keys.slice(page.offset, page.offset + page.pageSize).map((k) => ({ id: k.id, algorithm: k.algorithm, public_key: k.publicKey, created: k.created.toISOString() }));
      return ok(pageEnvelope(ctx, page, keys.length, views));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/evidence/settings/',
    tags,
    summary: "The account's evidence settings (auto_capture)",
    responses: { 200: { schema: SETTINGS_SCHEMA } },
    handler: async (ctx) => ok(await service(ctx).settings(ctx.principal!.accountId)),
  },
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/evidence/settings/',
    tags,
    summary: 'Change the evidence settings: `auto_capture: true` captures a pack of every match when it is first recorded',
    requestSchema: SETTINGS_SCHEMA,
    responses: { 200: { schema: SETTINGS_SCHEMA } },
    handler: async (ctx) => ok(await service(ctx).updateSettings(ctx.principal!.accountId, ctx.body)),
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/evidence/:id/',
    tags,
    summary: 'One evidence pack',
    responses: { 200: { schema: PACK_SCHEMA } },
    handler: async (ctx) => ok(packView(await packOf(ctx), ctx.baseUrl)),
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/evidence/:id/download',
    tags,
    summary: 'The WACZ file of a complete pack (409 while it is built or when it failed)',
    responses: { 200: { description: 'WACZ 1.1.1 (a zip)', files: ['application/wacz'] } },
    async handler(ctx) {
      const { stream, size, pack } = await service(ctx).download(ctx.principal!.accountId, ctx.params.id ?? '');
      return streamed(stream, size, 'application/wacz', `evidence-${pack.id}.wacz`);
    },
  },
];
