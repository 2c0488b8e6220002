/** Who is calling: resolved by the auth plugin from `Token` or `Bearer` credentials. */
export interface Principal {
  accountId: number;
  username: string;
  home: string;
  /** Grants such as `home:/other` (act on another user's home directory). */
  permissions: string[];
  scheme: 'token' | 'bearer';
  applicationId?: number;
}

/** Resolves the Authorization header; bound by the auth plugin under TOKENS.Authenticator. */
export interface Authenticator {
  /**
   * null when no credentials were given; throws a 401 ApiError when they are wrong (429 when the
   * client's address has failed too often: `client.address` is counted against).
   */
  authenticate(authorization: string | undefined, client?: { address: string }): Promise<Principal | null>;
}

export const homePermission = (home: string) => `home:${home}`;

/** True when the principal may act inside `home` (its own, or one it was granted). */
export function canActOnHome(principal: Principal, home: string): boolean {
  return principal.home === home || principal.permissions.includes(homePermission(home));
}
