import { fetchErrorStatus, FetchError, resolveClientUrl } from '@filigrane/net';
import { ApiError, CORE_SETTINGS, TOKENS, type CoreSettings, type ExtensionRegistry, type RouteContext } from '@filigrane/core';
import { LOCAL_URLS } from './local-urls.js';

const MAX_FETCH_BYTES = 64 * 1024 * 1024;

/** What resolving a URL needs from a request: a RouteContext or a GraphQL context both fit. */
export type UrlScope = Pick<RouteContext, 'container' | 'principal' | 'baseUrl'>;

/**
 * Resolves a URL given by a client with the net package's resolver, our own asset URLs through
 * the LOCAL_URLS contributions, and maps fetch failures to API errors. Shared with other plugins
 * (watermarking, search) so every client URL goes through one place and one error mapping.
 */
export async function resolveUrl(ctx: UrlScope, url: string): Promise<Buffer> {
  const local = ctx.container.get<ExtensionRegistry>(TOKENS.Extensions).get(LOCAL_URLS).map((resolve) => (u: URL) => resolve(u, ctx.principal!));
  try {
    return await resolveClientUrl(url, { baseUrl: ctx.baseUrl, local, maxBytes: MAX_FETCH_BYTES, allowHosts: ctx.container.get<CoreSettings>(CORE_SETTINGS.token).fetchAllowHosts });
  } catch (err) {
    if (err instanceof FetchError) throw new ApiError(fetchErrorStatus(err), `fetch_${err.code}`, `Could not fetch the url: ${err.message}`);
    throw err;
  }
}
