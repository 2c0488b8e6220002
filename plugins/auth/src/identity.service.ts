import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { conflict, returnedRows, TOKENS, validationError, type ErrorItem } from '@filigrane/core';
import { Account, AccountPermission } from './auth.entities.js';
import { AuthenticatorService } from './authenticator.service.js';

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{1,63}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An account's identity as other plugins see it. */
export interface AccountIdentity {
  id: number;
  username: string;
  email: string;
  fullName: string;
  home: string;
  created: Date;
}

export interface NewAccount {
  username: string;
  email: string;
  fullName?: string;
}

/** Accounts as identities: who a credential belongs to, and what it may act on. */
@injectable()
export class IdentityService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(AuthenticatorService) private readonly authenticator: AuthenticatorService,
  ) {}

  async create(input: NewAccount, manager: EntityManager = this.db.manager): Promise<Account> {
    const errors: ErrorItem[] = [];
    if (!USERNAME_PATTERN.test(input.username)) {
      errors.push({ field: 'username', code: 'invalid', details: 'Use 2 to 64 letters, digits, "_" or "-", starting with a letter or digit.' });
    }
    if (!EMAIL_PATTERN.test(input.email)) errors.push({ field: 'email', code: 'invalid', details: 'Enter a valid email address.' });
    if (errors.length) throw validationError(errors);
    if (await manager.findOne(Account, { where: { username: input.username } })) {
      throw conflict('username_taken', `An account named "${input.username}" already exists.`);
    }
    return manager.save(
      manager.create(Account, { username: input.username, email: input.email, fullName: input.fullName ?? '', home: `/${input.username}` }),
    );
  }

  findById(id: number): Promise<Account | null> {
    return this.db.manager.findOne(Account, { where: { id } });
  }

  findByUsername(username: string): Promise<Account | null> {
    return this.db.manager.findOne(Account, { where: { username } });
  }

  async permissions(accountId: number): Promise<string[]> {
    const rows = await this.db.manager.find(AccountPermission, { where: { accountId }, order: { permission: 'ASC' } });
    return rows.map((r) => r.permission);
  }

  async grant(accountId: number, permission: string): Promise<void> {
    await this.db.manager
      .createQueryBuilder()
      .insert()
      .into(AccountPermission)
      .values({ accountId, permission })
      .orIgnore()
      .execute();
  }

  async count(): Promise<number> {
    return this.db.manager.count(Account);
  }

  /**
   * Revokes every credential of the account (API keys, OAuth applications and their tokens) in the
   * caller's transaction: an account being deleted stops authenticating at once in this process,
   * within the API-key cache's 5 s elsewhere. Returns false when there is no such account.
   */
  async revokeCredentials(accountId: number, manager: EntityManager): Promise<boolean> {
    const locked: unknown[] = await manager.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    if (locked.length === 0) return false;
    await manager.query('DELETE FROM api_keys WHERE account_id = $1', [accountId]);
    await manager.query('DELETE FROM oauth_applications WHERE account_id = $1', [accountId]);
    this.authenticator.forgetAccount(accountId);
    return true;
  }

  /**
   * Deletes the identity (the last step of an account deletion, after every plugin's hook): its rows
   * cascade, and `home:/<username>` grants held by other accounts go too, so that a future account
   * with the same username is not opened to them. Idempotent.
   */
  async remove(accountId: number): Promise<void> {
    await this.db.transaction(async (m) => {
      const rows = returnedRows<{ home: string }>(await m.query('DELETE FROM accounts WHERE id = $1 RETURNING home', [accountId]));
      if (rows[0]) await m.query('DELETE FROM account_permissions WHERE permission = $1', [`home:${rows[0].home}`]);
    });
    this.authenticator.forgetAccount(accountId);
  }
}
