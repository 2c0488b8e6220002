import { listPage, ok, type RouteContext, type RouteSpec, type UploadedFile } from '@filigrane/core';
import { resolveUrl } from '@filigrane/plugin-media';
import { SearchService } from './search.service.js';

/**
 * JSON `file` (a URL or a data URI) becomes an uploaded file here, through the media plugin's
 * SSRF-safe fetcher, so that executors see one shape whatever the transport.
 */
/** The URL's last path segment, percent-decoded when that is possible; null when empty. */
function lastSegment(url: string): string | null {
  let segment: string;
  try {
    segment = new URL(url).pathname.split('/').pop() ?? '';
  } catch {
    return null;
  }
  try {
    return decodeURIComponent(segment) || null;
  } catch {
    return segment || null;
  }
}

export async function withResolvedFile(ctx: Pick<RouteContext, 'container' | 'baseUrl' | 'principal'>, body: unknown): Promise<unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const input = body as Record<string, unknown>;
  if (typeof input.file !== 'string' || input.file === '') return body;
  const url = input.file;
  // Fetch first: resolveUrl answers 400 for a URL that does not parse, before the name is read.
  const data = await resolveUrl(ctx, url);
  const file: UploadedFile = { kind: 'file', filename: url.startsWith('data:') ? null : lastSegment(url), contentType: null, data };
  return { ...input, file };
}

export const searchRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'POST',
    path: '/searches/',
    accepts: ['json', 'multipart'],
    summary: 'Search by text or image (multipart file, or JSON file URL / data URI): 200 with the result when sync, 201 with a pollable search otherwise',
    async handler(ctx) {
      const p = ctx.principal!;
      const body = await withResolvedFile(ctx, ctx.body);
      const result = await ctx.container.get(SearchService).submit(body, { accountId: p.accountId, home: p.home, baseUrl: ctx.baseUrl });
      return { status: result.status, body: result.body };
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/searches/',
    summary: 'The account\'s asynchronous searches, newest first',
    async handler(ctx) {
      const service = ctx.container.get(SearchService);
      return ok(await listPage(ctx, (offset, limit) => service.list(ctx.principal!.accountId, offset, limit), (r) => service.view(r, ctx.baseUrl)));
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/searches/:id/',
    summary: 'Status of an asynchronous search; matches once complete',
    handler: async (ctx) => ok(await ctx.container.get(SearchService).get(ctx.principal!.accountId, ctx.params.id ?? '', ctx.baseUrl)),
  },
];
