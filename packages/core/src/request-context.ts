/** Who is calling: resolved by the auth plugin from `Token` or `Bearer` credentials, or a browser session cookie. */
export interface Principal {
  accountId: number;
  username: string;
  home: string;
  /** Grants such as `home:/other` (act on another user's home directory). */
  permissions: string[];
  /** How it proved itself: API key, OAuth token, browser session, or a signed file URL (GET of that one file only). */
  scheme: 'token' | 'bearer' | 'session' | 'signed-url';
  applicationId?: number;
  /** With `scheme: 'session'`: the browser session's id (sign out, list of sessions). */
  sessionId?: number;
}

/** Resolves the Authorization header; bound by the auth plugin under TOKENS.Authenticator. */
export interface Authenticator {
  /**
   * null when no credentials were given; throws a 401 ApiError when they are wrong (429 when the
   * client's address has failed too often: `client.address` is counted against).
   */
  authenticate(authorization: string | undefined, client?: { address: string }): Promise<Principal | null>;
  /** The principal of an account that proved itself another way (signed URL, session); null when the account is gone. */
  principalOf?(accountId: number, scheme: Principal['scheme']): Promise<Principal | null>;
}

/** What a browser session is resolved from: the request's Cookie header, method and CSRF header. */
export interface SessionRequest {
  cookie: string | undefined;
  /** HTTP method: anything but GET, HEAD and OPTIONS needs the session's CSRF token. */
  method: string;
  /** The `X-CSRF-Token` header sent with the request. */
  csrfToken?: string;
  address: string;
}

/**
 * Browser sessions (the console's sign-in), bound by the auth plugin under TOKENS.Sessions. The
 * gateway resolves requests without an Authorization header through it; a subscription transport
 * (WebSocket upgrade) can do the same with the upgrade request's Cookie header and method `GET`.
 */
export interface SessionAuthenticator {
  /** The session cookie's name. */
  readonly cookieName: string;
  /**
   * The principal of the request's session cookie; null without a cookie or with an expired or
   * revoked session. Throws a 403 ApiError (`csrf_failed`) for an unsafe method whose CSRF token is wrong.
   */
  authenticate(request: SessionRequest): Promise<Principal | null>;
}

export const homePermission = (home: string) => `home:${home}`;

/** True when the principal may act inside `home` (its own, or one it was granted). */
export function canActOnHome(principal: Principal, home: string): boolean {
  return principal.home === home || principal.permissions.includes(homePermission(home));
}
