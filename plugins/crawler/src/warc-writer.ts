import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import type { FetchedResource } from '@filigrane/net';

const DIGEST = { algo: 'sha-1' as const, prefix: 'sha1:', base32: true };
const gzipAsync = promisify(gzip);
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 of a SHA-1 (160 bits: 32 characters, no padding), as WARC digests are written. */
function sha1Base32(parts: Uint8Array[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  const bytes = h.digest();
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `sha1:${out}`;
}

/**
 * Sets the block and payload digests with Node's native SHA-1 (warcio would start a WebAssembly
 * hasher per record, the costliest part of writing one): the block is the HTTP head as warcio
 * writes it, CRLF, then the payload.
 */
function withDigests(record: WARCRecord, payload: Uint8Array): WARCRecord {
  const head = record.httpHeaders ? Buffer.from(`${record.httpHeaders.toString()}\r\n`, 'utf8') : new Uint8Array(0);
  record.warcHeaders.headers.set('WARC-Payload-Digest', sha1Base32([payload]));
  record.warcHeaders.headers.set('WARC-Block-Digest', sha1Base32([head, payload]));
  return record;
}

/** One record as its own gzip member, compressed fast (level 1) on libuv's thread pool, off the event loop, in one pass. */
async function gzipped(record: WARCRecord): Promise<Buffer> {
  const raw = await WARCSerializer.serialize(record, { gzip: false, digest: DIGEST });
  return gzipAsync(raw, { level: 1, chunkSize: Math.min(Math.max(16 * 1024, raw.length + 1024), 8 * 1024 * 1024) });
}

function flatHeaders(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    // The body is stored decoded from chunked transfer: say so, or readers would de-chunk again.
    if (k.toLowerCase() === 'transfer-encoding') continue;
    out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

/** One fetch as two gzipped WARC 1.1 records (request, response) with block and payload digests. */
export async function warcExchange(res: FetchedResource, date: Date): Promise<Buffer> {
  const url = new URL(res.url);
  const warcDate = date.toISOString();
  const request = WARCRecord.create(
    {
      url: res.url, date: warcDate, type: 'request', warcVersion: 'WARC/1.1',
      statusline: `GET ${url.pathname}${url.search} HTTP/1.1`,
      httpHeaders: flatHeaders((res.requestHeaders ?? {}) as Record<string, string>),
    },
    [],
  );
  const payload = new Uint8Array(res.body.buffer, res.body.byteOffset, res.body.byteLength);
  const response = WARCRecord.create(
    {
      url: res.url, date: warcDate, type: 'response', warcVersion: 'WARC/1.1',
      statusline: `HTTP/${res.httpVersion ?? '1.1'} ${res.status} ${res.statusMessage ?? ''}`.trimEnd(),
      httpHeaders: flatHeaders(res.headers ?? {}),
    },
    [payload],
  );
  const [a, b] = await Promise.all([gzipped(withDigests(request, new Uint8Array(0))), gzipped(withDigests(response, payload))]);
  return Buffer.concat([a, b]);
}

/** The warcinfo record that opens a batch's WARC file. */
export async function warcInfo(filename: string, date: Date, info: Record<string, string>): Promise<Buffer> {
  const record = WARCRecord.createWARCInfo({ filename, date: date.toISOString(), warcVersion: 'WARC/1.1' }, info);
  return Buffer.from(await WARCSerializer.serialize(record, { gzip: true, digest: DIGEST }));
}
