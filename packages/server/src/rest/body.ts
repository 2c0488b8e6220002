import { ApiError, type BodyKind, type RouteSpec } from '@filigrane/core';
import { multipartBoundary, parseMultipart } from './multipart.js';

export interface ParsedBody {
  body: unknown;
  rawBody?: Buffer;
}

/** The media type without parameters, lower-cased; null when absent. */
export function mediaType(header: string | undefined): string | null {
  if (!header) return null;
  const t = header.split(';')[0]!.trim().toLowerCase();
  return t || null;
}

function matchesType(type: string, patterns: string[]): boolean {
  return patterns.some((p) => p === type || (p.endsWith('/*') && type.startsWith(p.slice(0, -1))));
}

function kindOf(type: string, route: RouteSpec): BodyKind | null {
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'multipart/form-data') return 'multipart';
  if (route.binaryTypes && matchesType(type, route.binaryTypes)) return 'binary';
  return null;
}

export function acceptedKinds(route: RouteSpec): BodyKind[] {
  return route.accepts ?? (['POST', 'PUT', 'PATCH'].includes(route.method) ? ['json'] : ['none']);
}

/**
 * Checks and parses a request body against what the route accepts:
 * 411 when a required body is missing, 415 for a media type the route does not take,
 * 400 for JSON or form data that does not parse.
 */
export function parseBody(route: RouteSpec, raw: Buffer | undefined, contentType: string | null, declaredLength: boolean, contentTypeHeader?: string): ParsedBody {
  const kinds = acceptedKinds(route);
  const bodyOptional = kinds.includes('none');
  if (!raw || raw.length === 0) {
    if (bodyOptional) return { body: undefined };
    throw new ApiError(411, 'length_required', declaredLength ? 'The request body is empty.' : 'A request body with a Content-Length is required.');
  }
  if (kinds.length === 1 && kinds[0] === 'none') return { body: undefined };
  if (!contentType) throw new ApiError(415, 'unsupported_media_type', 'A Content-Type header is required.');
  const kind = kindOf(contentType, route);
  if (!kind || !kinds.includes(kind)) {
    const accepted = kinds.flatMap((k) => (k === 'json' ? ['application/json'] : k === 'form' ? ['application/x-www-form-urlencoded'] : k === 'binary' ? (route.binaryTypes ?? []) : k === 'multipart' ? ['multipart/form-data'] : []));
    throw new ApiError(415, 'unsupported_media_type', `Unsupported media type "${contentType}". Accepted: ${accepted.join(', ')}.`);
  }
  if (kind === 'binary') return { body: undefined, rawBody: raw };
  if (kind === 'multipart') return { body: parseMultipart(raw, multipartBoundary(contentTypeHeader)) };
  const text = raw.toString('utf8');
  if (kind === 'form') return { body: Object.fromEntries(new URLSearchParams(text)) };
  try {
    return { body: JSON.parse(text) as unknown };
  } catch (err) {
    throw new ApiError(400, 'parse_error', `JSON parse error: ${(err as Error).message}`);
  }
}
