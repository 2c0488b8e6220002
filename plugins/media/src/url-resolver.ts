import { inject, injectable } from 'inversify';
import { fetchErrorStatus, FetchError, resolveClientUrl } from '@filigrane/net';
import { ApiError, CORE_SETTINGS, TOKENS, type ClientUrlResolver, type CoreSettings, type ExtensionRegistry, type Principal, type RouteContext } from '@filigrane/core';
import { LOCAL_URLS } from './local-urls.js';

const MAX_FETCH_BYTES = 64 * 1024 * 1024;

/** What resolving a URL needs from a request: a RouteContext or a GraphQL context both fit. */
export type UrlScope = Pick<RouteContext, 'container' | 'principal' | 'baseUrl'>;

/**
 * Resolves a URL given by a client with the net package's resolver, our own asset URLs through
 * the LOCAL_URLS contributions, and maps fetch failures to API errors. Bound as TOKENS.ClientUrls,
 * so every client URL of every plugin goes through one place and one error mapping.
 */
@injectable()
export class ClientUrlService implements ClientUrlResolver {
  constructor(
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
  ) {}

  async resolve(scope: { principal?: Principal | null; baseUrl: string }, url: string): Promise<Buffer> {
    const local = this.extensions.get(LOCAL_URLS).map((resolve) => (u: URL) => resolve(u, scope.principal!));
    try {
      return await resolveClientUrl(url, { baseUrl: scope.baseUrl, local, maxBytes: MAX_FETCH_BYTES, allowHosts: this.core.fetchAllowHosts });
    } catch (err) {
      if (err instanceof FetchError) throw new ApiError(fetchErrorStatus(err), `fetch_${err.code}`, `Could not fetch the url: ${err.message}`);
      throw err;
    }
  }
}

export function resolveUrl(ctx: UrlScope, url: string): Promise<Buffer> {
  return ctx.container.get(ClientUrlService).resolve(ctx, url);
}
