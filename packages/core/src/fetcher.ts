/**
 * The SSRF-safe fetcher plugins get from `TOKENS.Fetcher`: every URL is hostile, so private,
 * loopback and link-local addresses are refused (after DNS, on every redirect) unless the operator
 * allows them with FETCH_ALLOW_HOSTS, which the platform applies for you.
 */
export interface FetchOptions {
  /** Default 50 MiB; checked on Content-Length and on the bytes actually streamed. */
  maxBytes?: number;
  /** Default 20 000: one deadline for the whole fetch (DNS, connect, headers, body, redirects). */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  accept?: string;
  userAgent?: string;
  method?: 'GET' | 'POST';
  body?: Buffer | string;
  headers?: Record<string, string>;
  /** true: any status comes back with its body instead of throwing `http_error`. */
  returnAnyStatus?: boolean;
}

export interface FetchResult {
  /** Final URL after redirects. */
  url: string;
  status: number;
  /** Media type, lower case, without parameters. */
  contentType: string | null;
  body: Buffer;
}

/**
 * What a refused or failed fetch throws: an Error whose `name` is 'FetchError' and whose `code`
 * says why. The message names the URL's host at most, so it may be shown to whoever gave the URL.
 */
export type FetchFailureCode =
  | 'invalid_url' | 'scheme_not_allowed' | 'address_not_allowed' | 'dns_error' | 'too_large'
  | 'timeout' | 'too_many_redirects' | 'http_error' | 'network_error' | 'invalid_data_uri';

export interface FetchFailure extends Error {
  name: 'FetchError';
  code: FetchFailureCode;
  /** Upstream status, for 'http_error'. */
  status?: number;
}

/** A brand-free check (works whichever copy threw it). */
export const isFetchFailure = (err: unknown): err is FetchFailure => err instanceof Error && err.name === 'FetchError' && typeof (err as FetchFailure).code === 'string';

export interface Fetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchResult>;
}
