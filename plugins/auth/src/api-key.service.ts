import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { sha256Hex, TOKENS, type SecretBox } from '@filigrane/core';
import { ApiKey } from './auth.entities.js';
import { newSecret } from './secrets.js';

/** API keys: never stored in clear (hash for lookup, sealed copy for the settings page). */
@injectable()
export class ApiKeyService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.SecretBox) private readonly box: SecretBox,
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
}
