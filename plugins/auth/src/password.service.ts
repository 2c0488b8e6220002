import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { TOKENS, validationError } from '@filigrane/core';
import { hashPassword, UNUSABLE_PASSWORD_HASH, verifyPassword } from './secrets.js';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;

/** NIST 800-63B: a length floor and ceiling, nothing else imposed; the field named for error bodies. */
export function checkPassword(password: unknown, field = 'password'): string {
  if (typeof password !== 'string' || password.length === 0) throw validationError([{ field, code: 'required', details: 'Enter a password.' }]);
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw validationError([{ field, code: 'too_short', details: `Use at least ${PASSWORD_MIN_LENGTH} characters (a few words make a strong password).` }]);
  }
  if (password.length > PASSWORD_MAX_LENGTH) throw validationError([{ field, code: 'too_long', details: `Use at most ${PASSWORD_MAX_LENGTH} characters.` }]);
  if (password.includes('\u0000')) throw validationError([{ field, code: 'invalid', details: 'A password cannot contain the NUL character.' }]);
  return password;
}

/** Account passwords (for browser sign-in): stored as memory-hard scrypt hashes only. */
@injectable()
export class PasswordService {
  constructor(@inject(TOKENS.DataSource) private readonly db: DataSource) {}

  /** Sets the password (checked first); every browser session of the account but `keepSession` ends. */
  async set(accountId: number, password: string, options: { keepSession?: number; manager?: EntityManager } = {}): Promise<void> {
    const hash = await hashPassword(checkPassword(password));
    const run = async (m: EntityManager) => {
      await m.query('UPDATE accounts SET password_hash = $2, password_changed = now() WHERE id = $1', [accountId, hash]);
      await m.query('DELETE FROM auth_sessions WHERE account_id = $1 AND id IS DISTINCT FROM $2', [accountId, options.keepSession ?? null]);
    };
    await (options.manager ? run(options.manager) : this.db.transaction(run));
  }

  async has(accountId: number): Promise<boolean> {
    const rows: { set: boolean }[] = await this.db.query('SELECT password_hash IS NOT NULL AS set FROM accounts WHERE id = $1', [accountId]);
    return rows[0]?.set ?? false;
  }

  /** The account id when the password is the account's; unknown names cost the same time as known ones. */
  async verify(username: string, password: string): Promise<number | null> {
    const rows: { id: number; password_hash: string | null }[] = await this.db.query('SELECT id, password_hash FROM accounts WHERE username = $1', [username]);
    const row = rows[0];
    const ok = await verifyPassword(password, row?.password_hash ?? UNUSABLE_PASSWORD_HASH);
    return ok && row?.password_hash ? row.id : null;
  }

  /** True when `password` is the account's current one (false when it has none). */
  async matches(accountId: number, password: string): Promise<boolean> {
    const rows: { password_hash: string | null }[] = await this.db.query('SELECT password_hash FROM accounts WHERE id = $1', [accountId]);
    const stored = rows[0]?.password_hash;
    return verifyPassword(password, stored ?? UNUSABLE_PASSWORD_HASH).then((ok) => ok && Boolean(stored));
  }
}
