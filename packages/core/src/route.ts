import type { FilterFields } from './filter-language.js';
import type { Readable } from 'node:stream';
import type { Container } from 'inversify';
import type { CsvExport } from './csv.js';
import type { Principal } from './request-context.js';

export type ApiVersion = 'v1' | 'v2' | 'v3' | 'v4';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | string[] | undefined;

export interface RouteContext {
  container: Container;
  /** null only on routes declared with `auth: 'none'`. */
  principal: Principal | null;
  version: ApiVersion | null;
  params: Record<string, string>;
  query: Record<string, QueryValue>;
  /** Parsed JSON or form body; undefined when there is none. */
  body: unknown;
  /** The raw bytes, for routes that accept binary bodies. */
  rawBody?: Buffer;
  contentType: string | null;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  /** The request path exactly as sent (still percent-encoded, dot segments untouched). */
  rawPath: string;
  /** Absolute URL of this request, with its query string. */
  url: URL;
  /** Absolute base URL of the service (scheme, host, port). */
  baseUrl: string;
  /** The client's address (the socket's, or X-Forwarded-For through the proxies TRUST_PROXY names). */
  clientAddress?: string;
}

export interface RouteResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Set for non-JSON payloads (files). */
  contentType?: string;
  /** A streamed CSV export (format=csv on routes that declare it), written batch by batch. */
  csv?: CsvExport;
}

export type BodyKind = 'json' | 'form' | 'binary' | 'multipart' | 'none';

/** A file part of a multipart/form-data body (other parts arrive as strings, repeated names as lists). */
export interface UploadedFile {
  kind: 'file';
  /** The part's filename, as sent; null when absent. */
  filename: string | null;
  contentType: string | null;
  data: Buffer;
}

export const isUploadedFile = (v: unknown): v is UploadedFile =>
  typeof v === 'object' && v !== null && (v as UploadedFile).kind === 'file' && Buffer.isBuffer((v as UploadedFile).data);

/** A JSON Schema object (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = Record<string, unknown>;

export interface RouteSpec {
  /** API versions the route is mounted under (`/api/<v><path>`); omit for absolute paths like /o/token/. */
  versions?: ApiVersion[];
  method: HttpMethod;
  /** Fastify-style path with `:params` and an optional trailing `*` wildcard. */
  path: string;
  /** 'required' (default): Token or Bearer; 'none': the handler authenticates itself. */
  auth?: 'required' | 'none';
  /** Body kinds accepted; default ['json'] for POST/PUT/PATCH, ['none'] otherwise. */
  accepts?: BodyKind[];
  /**
   * Largest body in bytes. Default: 1 MiB (JSON_BODY_LIMIT) for routes taking only JSON or forms,
   * the gateway's BODY_LIMIT_BYTES (64 MiB) for routes taking binary or multipart uploads.
   */
  bodyLimitBytes?: number;
  /** Media types accepted for binary bodies, for example ['application/lmk', 'image/*']. */
  binaryTypes?: string[];
  /** Output formats besides json (the adapter answers 406 for any other; for yaml the handler returns the bytes). */
  formats?: ('json' | 'csv' | 'yaml')[];
  /** For csv: the list field to flatten (default `results`). */
  csvList?: string;
  summary?: string;
  // Description for the OpenAPI document (`/api/schema/`); every field is optional: a route without
  // them still appears, with its path parameters, the error body and a generic response.
  description?: string;
  /** Grouping in the API docs; defaults to the owning plugin's id. */
  tags?: string[];
  /** Query parameters (name -> JSON Schema, with an optional `description`). */
  query?: Record<string, JsonSchema>;
  /**
   * The collection's filter fields in the spec's filter language (the declaration its parser reads):
   * listed in the OpenAPI document as `x-filters` with their operators, where the GraphQL parity test reads them.
   */
  filters?: FilterFields;
  /** JSON Schema (2020-12) of a JSON or form body. */
  requestSchema?: JsonSchema;
  /** JSON Schema of the success response bodies, by status (200, 201...). */
  responses?: Record<number, { description?: string; schema?: JsonSchema; /** A file answer: its media types instead of JSON. */ files?: string[] }>;
  handler(ctx: RouteContext): Promise<RouteResponse>;
}

/** Default body limit of routes that take only JSON or form bodies. */
export const JSON_BODY_LIMIT = 1024 * 1024;

export const ok = (body: unknown, headers?: Record<string, string>): RouteResponse => ({ status: 200, body, headers });
/**
 * 201 with the new resource. `location` is its URL when the body has no `url` of this service
 * (the REST adapter otherwise sets `Location` from the body's `url`).
 */
export const created = (body: unknown, location?: string): RouteResponse => ({ status: 201, body, headers: location ? { location } : undefined });
/** 202: the work was queued (a job); the body usually names what to poll. */
export const accepted = (body: unknown, headers?: Record<string, string>): RouteResponse => ({ status: 202, body, headers });
export const csvExport = (exp: CsvExport): RouteResponse => ({ status: 200, csv: exp });
/** True when the request asks for CSV (the adapter has already refused formats the route does not declare). */
export const wantsCsv = (ctx: Pick<RouteContext, 'query'>): boolean => queryString(ctx.query, 'format') === 'csv';
export const noContent = (): RouteResponse => ({ status: 204 });
export const file = (data: Buffer, contentType: string, filename?: string): RouteResponse => ({
  status: 200,
  body: data,
  contentType,
  headers: filename ? { 'content-disposition': `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"` } : {},
});

/** A streamed file (a blob opened with its size): sent as is, with Content-Type and Content-Length. */
export const streamed = (stream: Readable, size: number, contentType: string, filename?: string): RouteResponse => ({
  status: 200,
  body: stream,
  contentType,
  headers: {
    'content-length': String(size),
    ...(filename ? { 'content-disposition': `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"` } : {}),
  },
});

/** The single value of a query parameter (the last one wins when repeated). */
export function queryString(query: Record<string, QueryValue>, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}
