import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse as parseCookie, serialize as serializeCookie } from 'cookie';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiError, returnedRows, sha256Hex, TOKENS, validationError, type Clock, type Principal, type SessionAuthenticator, type SessionRequest } from '@filigrane/core';
import { AUTH_SETTINGS, type AuthSettings } from './auth.settings.js';
import { PRINCIPAL_COLUMNS, toPrincipal } from './authenticator.service.js';
import { CredentialThrottle } from './credential-throttle.service.js';
import { PasswordService, PASSWORD_MAX_LENGTH } from './password.service.js';
import { newSecret } from './secrets.js';

export const SESSION_COOKIE = 'filigrane_session';
export const CSRF_HEADER = 'x-csrf-token';
const TOKEN_PATTERN = /^fs_[A-Za-z0-9_-]{40}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** last_seen is written at most this often per session (not on every request). */
const TOUCH_MS = 60_000;

export interface BrowserSession {
  id: number;
  created: Date;
  lastSeen: Date;
  expires: Date;
  userAgent: string;
  address: string;
}

export interface SignedIn {
  token: string;
  csrfToken: string;
  session: BrowserSession;
  principal: Principal;
}

interface SessionRow {
  session_id: number;
  last_seen: Date;
  expires: Date;
  id: number;
  username: string;
  home: string;
  permissions: string[] | null;
}

/** The CSRF token of a session: derived from its secret, so it needs no storage and cannot be guessed without it. */
export const csrfTokenOf = (token: string) => createHmac('sha256', token).update('filigrane csrf').digest('base64url');

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Browser sessions: a random secret in an HttpOnly, SameSite=Strict cookie, stored hashed in
 * auth_sessions with an idle and an absolute expiry; unsafe methods also need the session's CSRF
 * token in X-CSRF-Token. Failed sign-ins go through the credential throttle (per address, per
 * username and address, per username).
 */
@injectable()
export class SessionService implements SessionAuthenticator {
  readonly cookieName = SESSION_COOKIE;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(AUTH_SETTINGS.token) private readonly settings: AuthSettings,
    @inject(CredentialThrottle) private readonly throttle: CredentialThrottle,
    @inject(PasswordService) private readonly passwords: PasswordService,
  ) {}

  tokenOf(cookieHeader: string | undefined): string | null {
    if (!cookieHeader) return null;
    const value = parseCookie(cookieHeader)[SESSION_COOKIE];
    return value && TOKEN_PATTERN.test(value) ? value : null;
  }

  async authenticate(request: SessionRequest): Promise<Principal | null> {
    const token = this.tokenOf(request.cookie);
    if (!token) return null;
    const rows: SessionRow[] = await this.db.query(
      `SELECT s.id AS session_id, s.last_seen, s.expires, ${PRINCIPAL_COLUMNS}
       FROM auth_sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = $1`,
      [sha256Hex(token)],
    );
    const row = rows[0];
    if (!row) return null;
    const now = this.clock.now().getTime();
    const lastSeen = new Date(row.last_seen).getTime();
    if (new Date(row.expires).getTime() <= now || lastSeen + this.settings.sessionIdleMinutes * 60_000 <= now) {
      await this.db.query('DELETE FROM auth_sessions WHERE id = $1', [row.session_id]);
      return null;
    }
    if (!SAFE_METHODS.has(request.method.toUpperCase()) && !(request.csrfToken && sameSecret(request.csrfToken, csrfTokenOf(token)))) {
      throw new ApiError(403, 'csrf_failed', 'This request came with your session cookie but without its X-CSRF-Token header; reload the console (or sign in again) and retry.');
    }
    if (now - lastSeen > TOUCH_MS) await this.db.query('UPDATE auth_sessions SET last_seen = $2 WHERE id = $1', [row.session_id, this.clock.now()]);
    return { ...toPrincipal(row, 'session'), sessionId: row.session_id };
  }

  /** Checks the password under the throttle and opens a session: 401 on a wrong name or password, 429 when held back. */
  async signIn(input: { username: unknown; password: unknown }, client: { address: string; userAgent?: string }): Promise<SignedIn> {
    const { username, password } = input;
    const errors = [];
    if (typeof username !== 'string' || username === '') errors.push({ field: 'username', code: 'required', details: 'Enter your username.' });
    if (typeof password !== 'string' || password === '') errors.push({ field: 'password', code: 'required', details: 'Enter your password.' });
    if (errors.length) throw validationError(errors);
    const name = (username as string).slice(0, 200);
    const accountId =
      (password as string).length > PASSWORD_MAX_LENGTH || name.includes('\u0000')
        ? null
        : await this.throttle.guard({ address: client.address, client: `signin:${name.toLowerCase()}` }, () => this.passwords.verify(name, password as string));
    if (accountId === null) throw new ApiError(401, 'invalid_credentials', 'Wrong username or password. Check both and try again; an administrator can set a new password with `filigrane account set-password`.');
    return this.open(accountId, client);
  }

  private async open(accountId: number, client: { address: string; userAgent?: string }): Promise<SignedIn> {
    const token = newSecret('fs');
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.settings.sessionMaxHours * 3_600_000);
    const rows: (SessionRow & { created: Date })[] = await this.db.query(
      `WITH s AS (
         INSERT INTO auth_sessions (account_id, token_hash, created, last_seen, expires, user_agent, address)
         VALUES ($1, $2, $3, $3, $4, $5, $6) RETURNING id, account_id, created, last_seen, expires)
       SELECT s.id AS session_id, s.created, s.last_seen, s.expires, ${PRINCIPAL_COLUMNS}
       FROM s JOIN accounts a ON a.id = s.account_id`,
      [accountId, sha256Hex(token), now, expires, (client.userAgent ?? '').replace(/\u0000/g, '').slice(0, 300), client.address],
    );
    const row = rows[0]!;
    return {
      token,
      csrfToken: csrfTokenOf(token),
      session: { id: row.session_id, created: row.created, lastSeen: row.last_seen, expires: row.expires, userAgent: client.userAgent ?? '', address: client.address },
      principal: { ...toPrincipal(row, 'session'), sessionId: row.session_id },
    };
  }

  /** The session of a token (after authenticate accepted it), with its CSRF token. */
  async current(accountId: number, sessionId: number, cookieHeader: string | undefined): Promise<(BrowserSession & { csrfToken: string }) | null> {
    const token = this.tokenOf(cookieHeader);
    const session = token ? (await this.list(accountId, sessionId))[0] : undefined;
    return token && session ? { ...session, csrfToken: csrfTokenOf(token) } : null;
  }

  /** The account's open sessions, most recently used first (or just session `only`). */
  async list(accountId: number, only?: number): Promise<BrowserSession[]> {
    return (await this.page(accountId, 0, 1000, only))[0];
  }

  /** A slice of the account's open sessions, most recently used first, and how many are open. */
  async page(accountId: number, offset: number, limit: number, only?: number): Promise<[BrowserSession[], number]> {
    const params = [accountId, this.clock.now(), new Date(this.clock.now().getTime() - this.settings.sessionIdleMinutes * 60_000), offset, limit];
    const rows: { id: number; created: Date; last_seen: Date; expires: Date; user_agent: string; address: string; total: string }[] = await this.db.query(
      `SELECT id, created, last_seen, expires, user_agent, address, count(*) OVER () AS total FROM auth_sessions
       WHERE account_id = $1 AND expires > $2 AND last_seen > $3${only === undefined ? '' : ' AND id = $6'} ORDER BY last_seen DESC, id DESC OFFSET $4 LIMIT $5`,
      only === undefined ? params : [...params, only],
    );
    const total = rows.length ? Number(rows[0]!.total) : offset > 0 ? (await this.page(accountId, 0, 1, only))[1] : 0;
    return [rows.map((r) => ({ id: r.id, created: r.created, lastSeen: r.last_seen, expires: r.expires, userAgent: r.user_agent, address: r.address })), total];
  }

  /** Ends one session of the account; false when it has no such session. */
  async revoke(accountId: number, sessionId: number): Promise<boolean> {
    // DELETE ... RETURNING comes back from TypeORM as [rows, count]: its length was always 2 (every id "ended").
    const rows = returnedRows(await this.db.query('DELETE FROM auth_sessions WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, sessionId]));
    return rows.length > 0;
  }

  /** Ends every session of the account ("sign out everywhere"), or every one but `except`; returns how many. */
  async revokeAll(accountId: number, except?: number): Promise<number> {
    const rows = returnedRows(await this.db.query('DELETE FROM auth_sessions WHERE account_id = $1 AND id IS DISTINCT FROM $2 RETURNING id', [accountId, except ?? null]));
    return rows.length;
  }

  async purge(): Promise<void> {
    const now = this.clock.now();
    await this.db.query('DELETE FROM auth_sessions WHERE expires <= $1 OR last_seen <= $2', [now, new Date(now.getTime() - this.settings.sessionIdleMinutes * 60_000)]);
  }

  /** Set-Cookie for a new session (Secure when the service is reached over https). */
  cookie(token: string, secure: boolean): string {
    return serializeCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: this.settings.sessionMaxHours * 3600 });
  }

  /** Set-Cookie that makes the browser forget the session cookie. */
  clearCookie(secure: boolean): string {
    return serializeCookie(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: 0 });
  }
}
