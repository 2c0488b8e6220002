import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, type Clock, type FileUrlSigner, type RouteSpec } from '@filigrane/core';

const SIGNATURE = '&signature=';

const invalid = (details: string) => new ApiError(401, 'invalid_signature', details);

/**
 * HMAC-SHA256 signed file URLs. The key is derived from the master key (every process of one
 * installation shares it, so a URL signed by one is accepted by all); the signed text is the path
 * and query as sent (host left out: proxies may rewrite it), with the account and expiry in it.
 */
export class HmacFileUrlSigner implements FileUrlSigner {
  private readonly key: Buffer;

  constructor(
    masterKey: Buffer,
    private readonly ttlSeconds: number,
    private readonly clock: Clock,
  ) {
    this.key = createHash('sha256').update('filigrane/signed-file-urls/v1').update(masterKey).digest();
  }

  /**
   * The URL with its signature last. A fragment (`#top`: browsers never send it) stays after the
   * signature; the parameters of an earlier signature are dropped, so a signed URL signs afresh.
   */
  sign(accountId: number, url: string): { url: string; expires: Date } {
    const expires = Math.floor(this.clock.now().getTime() / 1000) + this.ttlSeconds;
    const parsed = /^(https?:\/\/[^/]+)?(\/[^?#]*)(?:\?([^#]*))?(#.*)?$/.exec(url);
    if (!parsed) throw new Error(`not a URL of this service: ${url}`);
    const [, origin = '', path, query = '', fragment = ''] = parsed;
    const kept = query.split('&').filter((p) => p !== '' && !/^(expires|account|signature)(=|$)/.test(p));
    const unsigned = `${path}?${[...kept, `expires=${expires}`, `account=${accountId}`].join('&')}`;
    return { url: `${origin}${unsigned}${SIGNATURE}${this.mac(unsigned)}${fragment}`, expires: new Date(expires * 1000) };
  }

  /** The account a request URL (path and query, as received) was signed for; a 401 when it is not valid now. */
  verify(rawUrl: string): number {
    const at = rawUrl.lastIndexOf(SIGNATURE);
    if (at < 0) throw invalid('The signature must be the last parameter of a signed URL.');
    const unsigned = rawUrl.slice(0, at);
    const given = Buffer.from(rawUrl.slice(at + SIGNATURE.length), 'base64url');
    const expected = Buffer.from(this.mac(unsigned), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('The URL signature does not match (it was altered, or signed by another installation).');
    const params = new URLSearchParams(unsigned.split('?')[1] ?? '');
    const expires = Number(params.get('expires'));
    if (!Number.isInteger(expires) || expires * 1000 <= this.clock.now().getTime()) throw invalid('The signed URL has expired; ask the API for a fresh one.');
    const account = Number(params.get('account'));
    if (!Number.isInteger(account) || account <= 0) throw invalid('The signed URL names no account.');
    return account;
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}

/** True when the request carries a URL signature (it then authenticates by it, and only on file routes). */
export const hasSignature = (rawUrl: string) => rawUrl.includes(SIGNATURE) || /[?&]signature=/.test(rawUrl);

/** A GET route that answers a file (its 200 response declares media types instead of JSON). */
export const isFileRoute = (spec: Pick<RouteSpec, 'method' | 'responses'>) => spec.method === 'GET' && Boolean(spec.responses?.[200]?.files);

/** Matches the paths of the service's file routes (`/api/v4/media-files/:id/:file`...). */
export function filePathMatcher(paths: string[]): (path: string) => boolean {
  const patterns = paths.map((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+').replace(/\*/g, '.*')}/?$`));
  return (path) => patterns.some((re) => re.test(path));
}
