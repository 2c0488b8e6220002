import { ApiError, type Authenticator, type CredentialRequest, type CredentialResolver, type Principal } from '@filigrane/core';
import { hasSignature, type HmacFileUrlSigner } from '../browser/signed-urls.js';

/**
 * Who a request is, the same way for REST, GraphQL over HTTP and GraphQL over WebSocket: the
 * Authorization header (API key, OAuth token) first, then a signed file URL (GET of a file route
 * only), then the credentials plugins contribute to REQUEST_CREDENTIALS (the console's session
 * cookie). null: no credentials; a thrown 401/429: wrong ones.
 */
export class RequestAuthentication {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly resolvers: () => CredentialResolver[],
    private readonly signer: HmacFileUrlSigner,
  ) {}

  async ofHttp(req: CredentialRequest, route: { signedFiles: boolean }): Promise<Principal | null> {
    const authorization = req.headers.authorization;
    if (authorization) return this.authenticator.authenticate(authorization, { address: req.address });
    if (hasSignature(req.url)) {
      if (!route.signedFiles || (req.method !== 'GET' && req.method !== 'HEAD')) {
        throw new ApiError(401, 'invalid_signature', 'A signed URL opens one file (GET); use an API key or token for anything else.');
      }
      return this.signedPrincipal(this.signer.verify(req.url));
    }
    return this.fromPlugins(req);
  }

  /**
   * A WebSocket: the Authorization header of the upgrade (non-browser clients), else the
   * `authorization` of graphql-ws's connection_init payload (browsers cannot set headers on a
   * WebSocket), else plugins' credentials (cookies) when the page's origin is allowed: browsers
   * send cookies with cross-site WebSockets, and no CORS check stops those.
   */
  async ofSocket(req: CredentialRequest, payload: Record<string, unknown> | undefined, originAllowed: boolean): Promise<Principal | null> {
    const given = payload?.authorization ?? payload?.Authorization;
    const authorization = req.headers.authorization ?? (typeof given === 'string' && given ? given : undefined);
    if (authorization) return this.authenticator.authenticate(authorization, { address: req.address });
    return originAllowed ? this.fromPlugins(req) : null;
  }

  private async fromPlugins(req: CredentialRequest): Promise<Principal | null> {
    for (const resolve of this.resolvers()) {
      const principal = await resolve(req);
      if (principal) return principal;
    }
    return null;
  }

  private async signedPrincipal(accountId: number): Promise<Principal> {
    const principal = await this.authenticator.principalOf?.(accountId, 'signed-url');
    if (!principal) throw new ApiError(401, 'invalid_signature', 'The signed URL\'s account no longer exists.');
    return principal;
  }
}
