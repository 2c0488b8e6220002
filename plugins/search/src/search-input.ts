import type { RouteContext, UploadedFile } from '@filigrane/core';
import { fetchClientUrl } from '@filigrane/core';

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

/**
 * JSON `file` (a URL or a data URI) becomes an uploaded file here, through the media plugin's
 * SSRF-safe fetcher, so that executors see one shape whatever the transport.
 */
export async function withResolvedFile(ctx: Pick<RouteContext, 'container' | 'baseUrl' | 'principal'>, body: unknown): Promise<unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const input = body as Record<string, unknown>;
  if (typeof input.file !== 'string' || input.file === '') return body;
  const url = input.file;
  // Fetch first: fetchClientUrl answers 400 for a URL that does not parse, before the name is read.
  const data = await fetchClientUrl(ctx, url);
  const file: UploadedFile = { kind: 'file', filename: url.startsWith('data:') ? null : lastSegment(url), contentType: null, data };
  return { ...input, file };
}
