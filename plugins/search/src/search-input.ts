import type { RouteContext, UploadedFile } from '@filigrane/core';
import { resolveUrl } from '@filigrane/plugin-media';

/**
 * JSON `file` (a URL or a data URI) becomes an uploaded file here, through the media plugin's
 * SSRF-safe fetcher, so that executors see one shape whatever the transport.
 */
export async function withResolvedFile(ctx: Pick<RouteContext, 'container' | 'baseUrl' | 'principal'>, body: unknown): Promise<unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const input = body as Record<string, unknown>;
  if (typeof input.file !== 'string' || input.file === '') return body;
  const url = input.file;
  const filename = url.startsWith('data:') ? null : decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || null;
  const file: UploadedFile = { kind: 'file', filename, contentType: null, data: await resolveUrl(ctx, url) };
  return { ...input, file };
}
