import type { DataSource } from 'typeorm';
import { BlobMissingError, created, fetchClientUrl, file, isUploadedFile, listPage, noContent, notFound, ok, TOKENS, validationError, type BlobStore, type RouteContext, type RouteSpec } from '@filigrane/core';
import { MatchQueryService } from '@filigrane/plugin-matches';
import { PRESS_ISSUE_PAGE_SCHEMA, PRESS_ISSUE_SCHEMA, PRESS_PAGE_SCHEMA } from './press.schemas.js';
import { PRESS_INGEST, requireIngest } from './press-permission.js';
import { issueImageKey, parseIssueFields, PressIssueService } from './press-issue.service.js';


const FIELDS = ['file', 'url', 'name', 'date', 'domain'];

async function ingest(ctx: RouteContext) {
  const p = ctx.principal!;
  requireIngest(p);
  const body = ctx.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError([{ code: 'invalid', details: 'Expected a multipart form (file, name, date) or JSON (url, name, date).' }]);
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !FIELDS.includes(k));
  if (unknown.length) throw validationError(unknown.map((k) => ({ field: k, code: 'unknown_field', details: `Unknown field "${k}".` })));
  let data: Buffer;
  let filename: string | null = null;
  let sourceUrl: string | null = null;
  if (isUploadedFile(input.file)) {
    data = input.file.data;
    filename = input.file.filename;
  } else if (typeof input.url === 'string' && input.url) {
    // The fields are checked before anything is fetched.
    parseIssueFields(input.name, input.date, input.domain);
    data = await fetchClientUrl(ctx, input.url);
    sourceUrl = input.url.startsWith('data:') ? null : input.url;
    filename = sourceUrl ? decodeURIComponent(new URL(sourceUrl).pathname.split('/').pop() ?? '') || null : null;
  } else {
    throw validationError([{ field: 'file', code: 'required', details: 'Send the PDF as the multipart part "file", or its "url" (http(s) or data URI) in JSON.' }]);
  }
  const issue = await ctx.container.get(PressIssueService).ingest({
    data, name: input.name, date: input.date, domain: input.domain,
    origin: isUploadedFile(input.file) ? 'api' : 'url',
    ingestedBy: p.accountId, filename, sourceUrl, baseUrl: ctx.baseUrl,
  });
  return created(ctx.container.get(PressIssueService).view(issue, ctx.baseUrl));
}

const id = (ctx: RouteContext) => (/^\d{1,9}$/.test(ctx.params.id ?? '') ? Number(ctx.params.id) : -1);

export const pressRoutes: RouteSpec[] = [
  {
    versions: ['v3', 'v4'],
    method: 'POST',
    path: '/press/issues/',
    accepts: ['json', 'multipart'],
    summary: 'Ingest a press issue (multipart file, name, date; or JSON url, name, date); needs press:ingest. 201 with the pollable issue',
    responses: { 201: { schema: PRESS_ISSUE_SCHEMA } },
    handler: ingest,
  },
  {
    versions: ['v3', 'v4'],
    method: 'GET',
    path: '/press/issues/',
    summary: 'Press issues, newest first (press:ingest)',
    responses: { 200: { schema: PRESS_ISSUE_PAGE_SCHEMA } },
    async handler(ctx) {
      requireIngest(ctx.principal!);
      const service = ctx.container.get(PressIssueService);
      return ok(await listPage(ctx, (offset, limit) => service.list(offset, limit), (i) => service.view(i, ctx.baseUrl)));
    },
  },
  {
    versions: ['v3', 'v4'],
    method: 'GET',
    path: '/press/issues/:id/',
    summary: 'A press issue and its analysis status (pages done / total)',
    responses: { 200: { schema: PRESS_ISSUE_SCHEMA } },
    async handler(ctx) {
      requireIngest(ctx.principal!);
      const service = ctx.container.get(PressIssueService);
      return ok(service.view(await service.get(id(ctx)), ctx.baseUrl));
    },
  },
  {
    versions: ['v3', 'v4'],
    method: 'DELETE',
    path: '/press/issues/:id/',
    summary: 'Deletes a press issue and its files (its matches stay with the accounts)',
    responses: { 204: { description: 'Deleted' } },
    async handler(ctx) {
      requireIngest(ctx.principal!);
      await ctx.container.get(PressIssueService).delete(id(ctx));
      return noContent();
    },
  },
  {
    versions: ['v3', 'v4'],
    method: 'GET',
    path: '/press/issues/:id/pages/:page/',
    summary: 'A page of a press issue (the page.url of press matches): the issue and the page number',
    responses: { 200: { schema: PRESS_PAGE_SCHEMA } },
    async handler(ctx) {
      const p = ctx.principal!;
      const issueId = id(ctx);
      const page = /^\d{1,6}$/.test(ctx.params.page ?? '') ? Number(ctx.params.page) : -1;
      if (issueId < 0 || page < 1) throw notFound('No such page.');
      if (!p.permissions.includes(PRESS_INGEST)) {
        const matched = await ctx.container.get(MatchQueryService).hasMatchEndingWith(p.accountId, 'page_url', `/api/v3/press/issues/${issueId}/pages/${page}/`);
        if (!matched) throw notFound('No such page.');
      }
      const service = ctx.container.get(PressIssueService);
      const issue = await service.get(issueId).catch(() => null);
      if (!issue || (issue.pagesTotal !== null && page > issue.pagesTotal)) throw notFound('No such page.');
      return ok({ issue: { id: issue.id, url: service.view(issue, ctx.baseUrl).url, name: issue.name, date: issue.date }, page_number: page });
    },
  },
  {
    versions: ['v3', 'v4'],
    method: 'GET',
    path: '/press/issues/:id/images/:md5',
    summary: 'An image as printed in a press issue (for accounts it matched, and press:ingest holders)',
    responses: { 200: { files: ['image/jpeg', 'image/png'] } },
    async handler(ctx) {
      const p = ctx.principal!;
      const md5 = ctx.params.md5 ?? '';
      const issueId = id(ctx);
      if (!/^[0-9a-f]{32}$/.test(md5) || issueId < 0) throw notFound('No such image.');
      if (!p.permissions.includes(PRESS_INGEST)) {
        const matched = await ctx.container.get(MatchQueryService).hasMatchEndingWith(p.accountId, 'query_url', `/api/v3/press/issues/${issueId}/images/${md5}`);
        if (!matched) throw notFound('No such image.');
      }
      const key = issueImageKey(issueId, md5);
      const data = await ctx.container.get<BlobStore>(TOKENS.BlobStore).get(key);
      if (!data) {
        // Kept while its issue is: gone with the issue is "not found", gone otherwise a server fault.
        const issue: unknown[] = await ctx.container.get<DataSource>(TOKENS.DataSource).query('SELECT 1 FROM press_issues WHERE id = $1', [issueId]);
        if (!issue.length) throw notFound('No such image.');
        throw new BlobMissingError(key);
      }
      const jpeg = data[0] === 0xff && data[1] === 0xd8;
      return file(data, jpeg ? 'image/jpeg' : 'image/png');
    },
  },
];
