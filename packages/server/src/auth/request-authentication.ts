import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, type Authenticator, type Principal, type SessionAuthenticator } from '@filigrane/core';
import { hasSignature, type HmacFileUrlSigner } from '../browser/signed-urls.js';

/** What is read of a request to know who sends it (an HTTP request, or a WebSocket's upgrade). */
export interface CredentialRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  address: string;
}

/**
 * Who a request is, the same way for REST, GraphQL over HTTP and GraphQL over WebSocket: the
 * Authorization header (API key, OAuth token) first, then a signed file URL (GET of a file route
 * only), then the browser session cookie (the console, TOKENS.Sessions; CSRF checked by it on
 * unsafe methods). null: no credentials; a thrown 401/403/429: wrong ones.
 */
export class RequestAuthentication {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly sessions: SessionAuthenticator | null,
    private readonly signer: HmacFileUrlSigner,
  ) {}

  async ofHttp(req: CredentialRequest, route: { signedFiles: boolean }): Promise<Principal | null> {
    const authorization = req.headers.authorization;
    if (authorization !== undefined) return this.authenticator.authenticate(authorization, { address: req.address });
    if (hasSignature(req.url)) {
      if (!route.signedFiles || (req.method !== 'GET' && req.method !== 'HEAD')) {
        throw new ApiError(401, 'invalid_signature', 'A signed URL opens one file (GET); use an API key or token for anything else.');
      }
      return this.signedPrincipal(this.signer.verify(req.url));
    }
    return this.session(req);
  }

  /**
   * A WebSocket: the Authorization header of the upgrade (non-browser clients), else the
   * `authorization` of graphql-ws's connection_init payload (browsers cannot set headers on a
   * WebSocket), else the session cookie when the page's origin is allowed: browsers send cookies
   * with cross-site WebSockets, and no CORS check stops those. A subscription changes nothing, so
   * the upgrade counts as a safe (GET) request for the session's CSRF rule.
   */
  async ofSocket(req: CredentialRequest, payload: Record<string, unknown> | undefined, originAllowed: boolean): Promise<Principal | null> {
    const given = payload?.authorization ?? payload?.Authorization;
    const authorization = req.headers.authorization ?? (typeof given === 'string' && given ? given : undefined);
    if (authorization) return this.authenticator.authenticate(authorization, { address: req.address });
    return originAllowed ? this.session({ ...req, method: 'GET' }) : null;
  }

  private async session(req: CredentialRequest): Promise<Principal | null> {
    if (!req.headers.cookie || !this.sessions) return null;
    const csrf = req.headers['x-csrf-token'];
    return this.sessions.authenticate({ cookie: req.headers.cookie, method: req.method, csrfToken: typeof csrf === 'string' ? csrf : undefined, address: req.address });
  }

  private async signedPrincipal(accountId: number): Promise<Principal> {
    const principal = await this.authenticator.principalOf?.(accountId, 'signed-url');
    if (!principal) throw new ApiError(401, 'invalid_signature', 'The signed URL\'s account no longer exists.');
    return principal;
  }
}
