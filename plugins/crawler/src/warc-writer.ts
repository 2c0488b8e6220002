import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import type { FetchedResource } from '@filigrane/net';

const DIGEST = { algo: 'sha-1' as const, prefix: 'sha1:', base32: true };
const gzipAsync = promisify(gzip);

/** One record as its own gzip member, compressed on libuv's thread pool (off the event loop). */
async function gzipped(record: WARCRecord): Promise<Buffer> {
  return gzipAsync(await WARCSerializer.serialize(record, { gzip: false, digest: DIGEST }));
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
  const response = WARCRecord.create(
    {
      url: res.url, date: warcDate, type: 'response', warcVersion: 'WARC/1.1',
      statusline: `HTTP/${res.httpVersion ?? '1.1'} ${res.status} ${res.statusMessage ?? ''}`.trimEnd(),
      httpHeaders: flatHeaders(res.headers ?? {}),
    },
    [new Uint8Array(res.body.buffer, res.body.byteOffset, res.body.byteLength)],
  );
  const [a, b] = await Promise.all([gzipped(request), gzipped(response)]);
  return Buffer.concat([a, b]);
}

/** The warcinfo record that opens a batch's WARC file. */
export async function warcInfo(filename: string, date: Date, info: Record<string, string>): Promise<Buffer> {
  const record = WARCRecord.createWARCInfo({ filename, date: date.toISOString(), warcVersion: 'WARC/1.1' }, info);
  return Buffer.from(await WARCSerializer.serialize(record, { gzip: true, digest: DIGEST }));
}
