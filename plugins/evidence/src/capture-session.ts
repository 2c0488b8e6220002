import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import { isFetchFailure, type Clock, type Fetcher } from '@filigrane/plugin-api';

const gzipAsync = promisify(gzip);

/** One fetch of the capture, as recorded. */
export interface CapturedResource {
  url: string;
  /** Final URL after redirects. */
  finalUrl: string;
  status: number;
  contentType: string | null;
  body: Buffer;
  fetchedAt: Date;
}

/** A fetch the capture could not make (refused or failed), with the fetcher's reason. */
export interface CaptureFailure {
  url: string;
  code: string;
  message: string;
}

/** Bounds of one capture: resources, bytes, time. */
export interface CaptureLimits {
  maxResources: number;
  maxBytes: number;
  deadline: number;
}

/**
 * A fresh capture: every URL fetched through the platform's SSRF-safe fetcher (the page, the image,
 * and every request Chromium makes while rendering the screenshot), each fetch once, all recorded
 * as WARC 1.1 request/response records.
 */
export class CaptureSession {
  private readonly fetched = new Map<string, Promise<CapturedResource | CaptureFailure>>();
  private readonly order: string[] = [];
  private bytes = 0;

  constructor(
    private readonly fetcher: Fetcher,
    private readonly clock: Clock,
    private readonly limits: CaptureLimits,
  ) {}

  /** The resource behind `url` (fetched once per session), or why it could not be fetched. */
  fetch(url: string, accept?: string): Promise<CapturedResource | CaptureFailure> {
    const known = this.fetched.get(url);
    if (known) return known;
    const result = this.fetchOnce(url, accept);
    this.fetched.set(url, result);
    this.order.push(url);
    return result;
  }

  private async fetchOnce(url: string, accept?: string): Promise<CapturedResource | CaptureFailure> {
    if (this.order.length > this.limits.maxResources) return { url, code: 'too_many_resources', message: `the capture stops at ${this.limits.maxResources} resources` };
    const left = this.limits.deadline - Date.now();
    if (left <= 0) return { url, code: 'timeout', message: 'the capture ran out of time' };
    const maxBytes = this.limits.maxBytes - this.bytes;
    if (maxBytes <= 0) return { url, code: 'too_large', message: `the capture stops at ${this.limits.maxBytes} bytes` };
    try {
      const res = await this.fetcher.fetch(url, { returnAnyStatus: true, timeoutMs: Math.min(left, 20_000), maxBytes, ...(accept ? { accept } : {}) });
      this.bytes += res.body.length;
      return { url, finalUrl: res.url, status: res.status, contentType: res.contentType, body: res.body, fetchedAt: this.clock.now() };
    } catch (err) {
      if (isFetchFailure(err)) return { url, code: err.code, message: err.message };
      throw err;
    }
  }

  /** Resources fetched, in the order they were asked for (failures left out). */
  async resources(): Promise<CapturedResource[]> {
    const all = await Promise.all(this.order.map((u) => this.fetched.get(u)!));
    return all.filter((r): r is CapturedResource => 'status' in r);
  }

  /** Fetches that failed or were refused. */
  async failures(): Promise<CaptureFailure[]> {
    const all = await Promise.all(this.order.map((u) => this.fetched.get(u)!));
    return all.filter((r): r is CaptureFailure => !('status' in r));
  }

  /** The capture as one .warc.gz: a warcinfo record, then a request and a response per resource. */
  async warc(filename: string, info: Record<string, string>): Promise<Buffer> {
    const parts: Buffer[] = [];
    const warcinfo = WARCRecord.createWARCInfo({ filename, date: this.clock.now().toISOString(), warcVersion: 'WARC/1.1' }, info);
    parts.push(await serialize(warcinfo));
    for (const r of await this.resources()) {
      const target = r.finalUrl;
      const u = new URL(target);
      const date = r.fetchedAt.toISOString();
      const request = WARCRecord.create(
        { url: target, date, type: 'request', warcVersion: 'WARC/1.1', statusline: `GET ${u.pathname}${u.search} HTTP/1.1`, httpHeaders: { Host: u.host } },
        [],
      );
      // The fetcher gives the status, the media type and the decoded body: the response head is rebuilt from those.
      const headers: Record<string, string> = { 'Content-Length': String(r.body.length) };
      if (r.contentType) headers['Content-Type'] = r.contentType;
      const response = WARCRecord.create(
        { url: target, date, type: 'response', warcVersion: 'WARC/1.1', statusline: `HTTP/1.1 ${r.status}`, httpHeaders: headers },
        [new Uint8Array(r.body.buffer, r.body.byteOffset, r.body.byteLength)],
      );
      parts.push(await serialize(request), await serialize(response));
    }
    return Buffer.concat(parts);
  }
}

/** One record, one gzip member, with block and payload digests (sha256). */
async function serialize(record: WARCRecord): Promise<Buffer> {
  const raw = await WARCSerializer.serialize(record, { gzip: false, digest: { algo: 'sha-256', prefix: 'sha256:', base32: false } });
  return gzipAsync(raw);
}

export const isCaptured = (r: CapturedResource | CaptureFailure): r is CapturedResource => 'status' in r;
