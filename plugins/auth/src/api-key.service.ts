import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { forbidden, sha256Hex, TOKENS, type Principal, type SecretBox } from '@filigrane/core';
import { ApiKey } from './auth.entities.js';
import { AuthenticatorService } from './authenticator.service.js';
import { newSecret } from './secrets.js';

/**
 * Only a caller holding the API key itself (the `Token` scheme) or signed in with the account's
 * password (a browser session) may see or replace it: a bearer token is a delegated machine
 * credential and must not be able to escalate to the permanent key.
 */
export function requireTokenScheme(principal: Principal, action = 'The API key can only be read or rotated'): void {
  if (principal.scheme === 'bearer') {
    throw forbidden(`${action} with the API key itself (Authorization: Token) or in the console, not with a bearer token.`);
  }
}

/** API keys: never stored in clear (hash for lookup, sealed copy for the settings page). */
@injectable()
export class ApiKeyService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.SecretBox) private readonly box: SecretBox,
    @inject(AuthenticatorService) private readonly authenticator: AuthenticatorService,
  ) {}

  async issue(accountId: number, manager: EntityManager = this.db.manager): Promise<string> {
    const key = newSecret('fk');
    await manager.save(manager.create(ApiKey, { accountId, keyHash: sha256Hex(key), sealedKey: this.box.seal(key) }));
    return key;
  }

  /** The account's current key, decrypted (the spec lets users read it in their settings). */
  async reveal(accountId: number): Promise<string | null> {
    const row = await this.db.manager.findOne(ApiKey, { where: { accountId }, order: { id: 'DESC' } });
    return row ? this.box.open(row.sealedKey).toString('utf8') : null;
  }

  /**
   * Replaces the account's key: the new key is issued and every older one deleted in one
   * transaction, so the old key stops working at once (no grace period; see api-decisions.md).
   */
  async rotate(accountId: number): Promise<string> {
    const key = await this.db.transaction(async (manager) => {
      // Serialises concurrent rotations of one account: exactly one key survives.
      await manager.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      await manager.delete(ApiKey, { accountId });
      return this.issue(accountId, manager);
    });
    this.authenticator.forgetAccount(accountId);
    return key;
  }
}
