import { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { AllowList } from './allow-list.js';
import { FetchError } from './fetch-error.js';
import { guardedLookup } from './guarded-lookup.js';
import { parseIp } from './ip-address.js';

export interface SafeFetchOptions {
  /** Default 50 MiB; checked on Content-Length and on the bytes actually streamed. */
  maxBytes?: number;
  /** Default 20 000: one deadline for the whole fetch (DNS, connect, headers, body, every redirect). */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Exceptions to the private-address refusal: exact hostnames, IPs or CIDRs. */
  allowHosts?: string[];
  accept?: string;
  userAgent?: string;
  /** Default GET. A POST (webhook deliveries) sends `body` on the first hop only: redirects are not followed with it. */
  method?: 'GET' | 'POST';
  body?: Buffer | string;
  /** Extra request headers (content type, signatures; conditional GET: If-None-Match, If-Modified-Since). */
  headers?: Record<string, string>;
  /**
   * false: a redirect is returned to the caller (a crawler follows it itself, under its own rules).
   * Default true.
   */
  followRedirects?: boolean;
  /** true: any status is returned with its body instead of throwing 'http_error' (304, 429, 5xx). */
  returnAnyStatus?: boolean;
}

export interface FetchedResource {
  /** Final URL after redirects ('data:' for a data URI). */
  url: string;
  status: number;
  /** Media type, lower case, without parameters. */
  contentType: string | null;
  body: Buffer;
  /** Response head, as received (absent for data: URIs). */
  headers?: IncomingHttpHeaders;
  statusMessage?: string;
  httpVersion?: string;
  /** The request head that was sent for the final hop. */
  requestHeaders?: OutgoingHttpHeaders;
}

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_USER_AGENT = 'Filigrane/0.1 (+https://github.com/filigrane)';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface Hop {
  url: URL;
  method: 'GET' | 'POST';
  body?: Buffer;
  headers: OutgoingHttpHeaders;
  allow: AllowList;
  signal: AbortSignal;
}

/** GET an http(s) URL given by a user, refusing anything that reaches a non-public address. */
export async function safeFetch(url: string, options: SafeFetchOptions = {}): Promise<FetchedResource> {
  const maxBytes = limit(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes');
  const maxRedirects = limit(options.maxRedirects, DEFAULT_MAX_REDIRECTS, 'maxRedirects');
  const timeoutMs = limit(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const allow = new AllowList(options.allowHosts);
  const headers: OutgoingHttpHeaders = {
    'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
    // Raw bytes only: what is counted against maxBytes is what we keep, no decompression bomb.
    'accept-encoding': 'identity',
    connection: 'close',
  };
  if (options.accept !== undefined) headers.accept = options.accept;
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const method = options.method ?? 'GET';
  const requestBody = options.body === undefined ? undefined : Buffer.from(options.body);
  if (requestBody) headers['content-length'] = String(requestBody.length);

  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new FetchError('timeout', `no complete response within ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    let target = checkTarget(url, allow);
    for (let redirects = 0; ; redirects++) {
      const res = await send({ url: target, method, body: requestBody, headers, allow, signal: deadline.signal });
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode!) && location !== undefined && options.followRedirects !== false) {
        res.destroy();
        if (redirects >= maxRedirects || method !== 'GET') {
          throw new FetchError('too_many_redirects', `more than ${maxRedirects} redirects`);
        }
        target = checkTarget(location, allow, target);
        continue;
      }
      if ((res.statusCode! < 200 || res.statusCode! > 299) && !options.returnAnyStatus) {
        res.destroy();
        throw new FetchError('http_error', `${target.host} answered ${res.statusCode}`, res.statusCode);
      }
      const body = await readBody(res, maxBytes, deadline.signal);
      return {
        url: target.href, status: res.statusCode!, contentType: mediaType(res.headers['content-type']), body,
        headers: res.headers, statusMessage: res.statusMessage, httpVersion: res.httpVersion, requestHeaders: { ...headers, host: target.host },
      };
    }
  } finally {
    clearTimeout(timer);
  }
}

function limit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`);
  return value;
}

/**
 * Parses (relative to `base` for a redirect) and applies the rules that need no DNS: http(s) only,
 * no credentials, IP literals judged here since the socket does not look them up. Node's URL
 * parser has already turned `0x7f.1`, `2130706433` and `127.1` into `127.0.0.1`.
 */
export function checkTarget(raw: string, allow: AllowList, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new FetchError('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('scheme_not_allowed', `scheme ${url.protocol} is not allowed, only http and https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchError('invalid_url', 'URLs with credentials are not accepted');
  }
  if (url.hostname === '') throw new FetchError('invalid_url', 'URL has no host');
  const host = bareHost(url);
  if (parseIp(host) && !allow.permits(host, host)) {
    throw new FetchError('address_not_allowed', `${url.hostname} is not a public address`);
  }
  return url;
}

function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** One request; resolves with the response head, the body still unread. */
function send(hop: Hop): Promise<IncomingMessage> {
  const { url, allow, signal } = hop;
  const host = bareHost(url);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let req: ClientRequest;
    try {
      req = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        hostname: host,
        port: url.port === '' ? undefined : Number(url.port),
        path: url.pathname + url.search,
        method: hop.method,
        headers: hop.headers,
        agent: false, // a fresh socket per hop: never a pooled one connected under other rules
        lookup: guardedLookup(allow),
      });
    } catch {
      return reject(new FetchError('invalid_url', 'URL cannot be requested'));
    }
    const onAbort = () => req.destroy(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => signal.removeEventListener('abort', onAbort));
    // Belt and braces: the peer the socket really reached must pass the same rule as the lookup.
    req.on('socket', (socket: Socket) =>
      socket.once('connect', () => {
        if (!allow.permits(host, socket.remoteAddress ?? '')) {
          socket.destroy(new FetchError('address_not_allowed', `${url.hostname} is not a public address`));
        }
      }),
    );
    req.on('response', resolve);
    req.on('error', (err) => reject(asFetchError(err, signal)));
    req.end(hop.body);
  });
}

function readBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const tooLarge = () => new FetchError('too_large', `response is larger than ${maxBytes} bytes`);
  const declared = Number(res.headers['content-length']);
  if (res.headers['content-length'] !== undefined && declared > maxBytes) {
    res.destroy();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onAbort = () => fail(signal.reason);
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      res.destroy();
      reject(asFetchError(err, signal));
    };
    if (signal.aborted) return fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) fail(tooLarge());
      else chunks.push(chunk);
    });
    res.on('end', () => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(Buffer.concat(chunks, size));
    });
    res.on('error', fail);
    res.on('close', () => {
      if (!res.complete) fail(new FetchError('network_error', 'connection closed before the body was complete'));
    });
  });
}

function asFetchError(err: unknown, signal: AbortSignal): FetchError {
  if (err instanceof FetchError) return err;
  if (signal.aborted && signal.reason instanceof FetchError) return signal.reason;
  const code = (err as NodeJS.ErrnoException).code;
  return new FetchError('network_error', `network error${code ? ` (${code})` : ''}`);
}

function mediaType(header: string | undefined): string | null {
  const type = header?.split(';')[0]!.trim().toLowerCase();
  return type ? type : null;
}
