import { parseDataUri } from './data-uri.js';
import { DEFAULT_MAX_BYTES, FetchedResource, safeFetch, SafeFetchOptions } from './safe-fetch.js';

/** The entry point for "a URL or an inline data: URI" fields: data: decoded locally, the rest fetched. */
export async function fetchResource(urlOrDataUri: string, options: SafeFetchOptions = {}): Promise<FetchedResource> {
  const trimmed = urlOrDataUri.trim();
  if (/^data:/i.test(trimmed)) {
    const { contentType, body } = parseDataUri(trimmed, options.maxBytes ?? DEFAULT_MAX_BYTES);
    return { url: 'data:', status: 200, contentType, body };
  }
  return safeFetch(urlOrDataUri, options);
}
