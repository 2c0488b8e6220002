/** Who is calling: resolved by the auth plugin from `Token` or `Bearer` credentials. */
export interface Principal {
  accountId: number;
  username: string;
  home: string;
  /** Grants such as `home:/other` (act on another user's home directory). */
  permissions: string[];
  /** How it proved itself: API key, OAuth token, a signed file URL (GET of that one file only), or a plugin's credential. */
  scheme: 'token' | 'bearer' | 'signed-url' | (string & {});
  applicationId?: number;
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

export const homePermission = (home: string) => `home:${home}`;

/** True when the principal may act inside `home` (its own, or one it was granted). */
export function canActOnHome(principal: Principal, home: string): boolean {
  return principal.home === home || principal.permissions.includes(homePermission(home));
}
