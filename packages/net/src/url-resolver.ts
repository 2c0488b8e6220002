import { FetchError, type FetchErrorCode } from './fetch-error.js';
import { fetchResource } from './fetch-resource.js';

/** Resolves a URL of this very service without an HTTP round trip; null when it is not one of its own. */
export type LocalResolver = (url: URL) => Promise<Buffer | null>;

export interface ResolveUrlOptions {
  /** The service's own base URL: URLs under it are tried against `local` first. */
  baseUrl?: string;
  local?: LocalResolver[];
  maxBytes?: number;
  allowHosts?: readonly string[];
}

/**
 * A URL given by a client (an image, a registration file): the service's own asset URLs resolved
 * locally, data URIs inline, the rest through the SSRF-safe fetcher. Throws FetchError.
 */
export async function resolveClientUrl(url: string, options: ResolveUrlOptions = {}): Promise<Buffer> {
  if (options.baseUrl && url.startsWith(`${options.baseUrl}/`)) {
    for (const resolve of options.local ?? []) {
      const bytes = await resolve(new URL(url));
      if (bytes) return bytes;
    }
  }
  return (await fetchResource(url, { maxBytes: options.maxBytes, allowHosts: options.allowHosts ? [...options.allowHosts] : undefined })).body;
}

const CLIENT_FAULTS: FetchErrorCode[] = ['invalid_url', 'scheme_not_allowed', 'invalid_data_uri', 'address_not_allowed'];

/** The HTTP status a fetch failure of a client-given URL deserves: 413 too large, 400 a bad URL, 422 an unreachable one. */
export function fetchErrorStatus(err: FetchError): number {
  return err.code === 'too_large' ? 413 : CLIENT_FAULTS.includes(err.code) ? 400 : 422;
}
