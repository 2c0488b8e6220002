import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiError, sha256Hex, TOKENS, type Authenticator, type Clock, type Principal } from '@filigrane/core';
import { CredentialThrottle } from './credential-throttle.service.js';

interface PrincipalRow {
  id: number;
  username: string;
  home: string;
  permissions: string[] | null;
  expires?: Date;
  application_id?: number;
}

/** What a Principal is read from, in any query that joins `accounts a` (every way of signing in uses it). */
export const PRINCIPAL_COLUMNS = `a.id, a.username, a.home,
  ARRAY(SELECT permission FROM account_permissions p WHERE p.account_id = a.id ORDER BY permission) AS permissions`;

const KEY_CACHE_MS = 5_000;
const KEY_CACHE_MAX = 10_000;

const invalid = (details: string) => new ApiError(401, 'authentication_failed', details, undefined, { 'www-authenticate': 'Token' });

/**
 * Resolves `Authorization: Token <key>` and `Authorization: Bearer <token>`. API keys change only
 * when their owner rotates them, so they are cached a few seconds per process (a rotation clears
 * this process's cache; other processes within KEY_CACHE_MS); bearer tokens are checked every
 * time so that revocation and expiry take effect at once.
 */
@injectable()
export class AuthenticatorService implements Authenticator {
  private readonly keyCache = new Map<string, { principal: Principal; until: number }>();

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(CredentialThrottle) private readonly throttle: CredentialThrottle,
  ) {}

  async authenticate(header: string | undefined, client?: { address: string }): Promise<Principal | null> {
    if (!header) return null;
    const match = /^(\w+)\s+(\S+)\s*$/.exec(header);
    if (!match) throw invalid('Invalid Authorization header.');
    const scheme = match[1]!.toLowerCase();
    const credential = match[2]!;
    if (scheme === 'token') return this.byApiKey(credential, client);
    if (scheme === 'bearer') return this.byAccessToken(credential, client);
    if (scheme === 'basic') return null; // client credentials, read by the token endpoint itself
    throw invalid(`Unsupported authorization scheme "${match[1]}"; use Token or Bearer.`);
  }

  /** A wrong key or token: counted against the address (429 once it failed too often), else 401. */
  private async wrong(client: { address: string } | undefined, details: string): Promise<never> {
    if (client) await this.throttle.failed({ address: client.address });
    throw invalid(details);
  }

  private async byApiKey(key: string, client?: { address: string }): Promise<Principal> {
    const hash = sha256Hex(key);
    const now = Date.now();
    const cached = this.keyCache.get(hash);
    if (cached && cached.until > now) return cached.principal;
    const rows: PrincipalRow[] = await this.db.query(
      `SELECT ${PRINCIPAL_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
      [hash],
    );
    const row = rows[0];
    if (!row) return this.wrong(client, 'Invalid token.');
    const principal = toPrincipal(row, 'token');
    if (this.keyCache.size >= KEY_CACHE_MAX) this.keyCache.delete(this.keyCache.keys().next().value!);
    this.keyCache.set(hash, { principal, until: now + KEY_CACHE_MS });
    return principal;
  }

  /** Drops cached API-key principals of an account (after a rotation, so the old key fails at once here). */
  forgetAccount(accountId: number): void {
    for (const [hash, entry] of this.keyCache) if (entry.principal.accountId === accountId) this.keyCache.delete(hash);
  }

  /** The principal of an account that proved itself otherwise (a signed file URL, a session): null when it is gone. */
  async principalOf(accountId: number, scheme: Principal['scheme']): Promise<Principal | null> {
    const rows: PrincipalRow[] = await this.db.query(
      `SELECT ${PRINCIPAL_COLUMNS} FROM accounts a WHERE a.id = $1`,
      [accountId],
    );
    return rows[0] ? toPrincipal(rows[0], scheme) : null;
  }

  private async byAccessToken(token: string, client?: { address: string }): Promise<Principal> {
    const rows: PrincipalRow[] = await this.db.query(
      `SELECT ${PRINCIPAL_COLUMNS}, t.expires, t.application_id FROM oauth_access_tokens t
       JOIN oauth_applications app ON app.id = t.application_id
       JOIN accounts a ON a.id = app.account_id
       WHERE t.token_hash = $1`,
      [sha256Hex(token)],
    );
    const row = rows[0];
    if (!row) return this.wrong(client, 'Invalid or revoked access token.');
    if (new Date(row.expires!).getTime() <= this.clock.now().getTime()) {
      throw new ApiError(401, 'token_expired', 'The access token has expired; request a new one at /o/token/.', undefined, {
        'www-authenticate': 'Bearer error="invalid_token"',
      });
    }
    return { ...toPrincipal(row, 'bearer'), applicationId: row.application_id };
  }
}

export function toPrincipal(row: PrincipalRow, scheme: Principal['scheme']): Principal {
  return { accountId: row.id, username: row.username, home: row.home, permissions: row.permissions ?? [], scheme };
}
