/**
 * A small, bounded multipart/form-data parser (RFC 7578) over a body Fastify has already buffered
 * within its body limit. Written here rather than taken from npm because the body is in memory
 * already: no streaming is needed, only strict bounds on the number and size of parts.
 */
import { ApiError, type UploadedFile } from '@filigrane/core';

export interface MultipartLimits {
  /** Most parts (default 32). */
  parts?: number;
  /** Largest non-file field in bytes (default 64 KiB). */
  fieldBytes?: number;
  /** Most file parts (default 1: a search takes one image). */
  files?: number;
}

const bad = (details: string) => new ApiError(400, 'parse_error', `Multipart parse error: ${details}`);

/** The boundary parameter of a multipart Content-Type header (quoted or not). */
export function multipartBoundary(header: string | undefined): string {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(header ?? '');
  if (!m) throw bad('the Content-Type has no boundary.');
  return m[1] ?? m[2]!;
}

function headerParam(value: string, name: string): string | null {
  const m = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, 'i').exec(value);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!;
}

/** Parses the body into fields (string, or string[] when repeated) and files. */
export function parseMultipart(body: Buffer, boundary: string, limits: MultipartLimits = {}): Record<string, unknown> {
  const maxParts = limits.parts ?? 32;
  const maxField = limits.fieldBytes ?? 64 * 1024;
  const maxFiles = limits.files ?? 1;
  const delimiter = Buffer.from(`--${boundary}`);
  // A Map, not an object: a part named `__proto__` must stay a plain field, never a prototype.
  const out = new Map<string, unknown>();
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw bad('no part found.');
  let parts = 0;
  let files = 0;
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return Object.fromEntries(out); // closing delimiter "--" (own properties only)
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) throw bad('malformed delimiter line.');
    pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0 || headerEnd - pos > 8192) throw bad('part headers missing or too long.');
    const headers = new Map<string, string>();
    for (const line of body.toString('utf8', pos, headerEnd).split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw bad('unterminated part.');
    const data = body.subarray(headerEnd + 4, next);
    if (++parts > maxParts) throw new ApiError(413, 'too_many_parts', `At most ${maxParts} form parts.`);
    const disposition = headers.get('content-disposition') ?? '';
    const name = headerParam(disposition, 'name');
    if (!/^form-data\b/i.test(disposition) || !name) throw bad('a part has no form-data name.');
    const filename = headerParam(disposition, 'filename');
    if (filename !== null || (headers.get('content-type') ?? '').toLowerCase().startsWith('image/')) {
      if (++files > maxFiles) throw new ApiError(413, 'too_many_files', `At most ${maxFiles} file(s) per request.`);
      const file: UploadedFile = { kind: 'file', filename, contentType: headers.get('content-type') ?? null, data: Buffer.from(data) };
      if (out.has(name)) throw bad(`file field "${name}" is repeated.`);
      out.set(name, file);
    } else {
      if (data.length > maxField) throw new ApiError(413, 'field_too_large', `Form field "${name}" exceeds ${maxField} bytes.`);
      const value = data.toString('utf8');
      const prev = out.get(name);
      if (prev !== undefined && typeof prev !== 'string' && !Array.isArray(prev)) throw bad(`field "${name}" is both a file and a value.`);
      out.set(name, prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value]);
    }
    pos = next + 2;
  }
}
