import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiError, TOKENS } from '@filigrane/core';
import type { QuotaCounter } from './account.entities.js';

export const QUOTA_EXCEEDED = 'quota exceeded';

/** A change of usage: images and bytes owned, and the quotas counters. */
export interface UsageDelta {
  images?: number;
  bytes?: number;
  counters?: Partial<Record<QuotaCounter, number>>;
}

interface UsageRow {
  image_count: number;
  image_quota: number | null;
  disk_usage: string;
  disk_quota: string | null;
  quotas: Record<string, number | null>;
  incidents: string | null;
}

/**
 * Usage counters and quotas, changed inside the caller's transaction so that usage always
 * matches what is stored. Growth beyond a quota is refused (403 quota_exceeded) and raises the
 * account's `quota exceeded` incident (see recordQuotaExceeded); shrinking back under every quota clears it.
 */
@injectable()
export class AccountUsageService {
  constructor(@inject(TOKENS.DataSource) private readonly db: DataSource) {}

  /**
   * Raises the `quota exceeded` incident. Called by the caller after its refused transaction
   * has rolled back (inside it, this would wait on the transaction's own row lock).
   */
  async recordQuotaExceeded(accountId: number): Promise<void> {
    await this.db.query('UPDATE account_profiles SET incidents = $2 WHERE account_id = $1 AND incidents IS NULL', [accountId, QUOTA_EXCEEDED]);
  }

  async apply(manager: EntityManager, accountId: number, delta: UsageDelta): Promise<void> {
    const rows: UsageRow[] = await manager.query(
      'SELECT image_count, image_quota, disk_usage, disk_quota, quotas, incidents FROM account_profiles WHERE account_id = $1 FOR UPDATE',
      [accountId],
    );
    const row = rows[0];
    if (!row) throw new ApiError(404, 'not_found', 'No such account.');
    const images = row.image_count + (delta.images ?? 0);
    const bytes = Number(row.disk_usage) + (delta.bytes ?? 0);
    const quotas = { ...row.quotas };
    const over: string[] = [];
    const grows = (delta.images ?? 0) > 0 || (delta.bytes ?? 0) > 0 || Object.values(delta.counters ?? {}).some((v) => (v ?? 0) > 0);
    if (row.image_quota !== null && images > row.image_quota && (delta.images ?? 0) > 0) over.push(`image quota (${row.image_quota})`);
    if (row.disk_quota !== null && bytes > Number(row.disk_quota) && (delta.bytes ?? 0) > 0) over.push(`disk quota (${row.disk_quota} bytes)`);
    for (const [counter, change] of Object.entries(delta.counters ?? {})) {
      const value = Number(quotas[counter] ?? 0) + (change ?? 0);
      const limit = quotas[`${counter}_limit`];
      if (limit !== null && limit !== undefined && value > limit && (change ?? 0) > 0) over.push(`${counter} limit (${limit})`);
      quotas[counter] = Math.max(0, value);
    }
    if (over.length && grows) {
      throw new ApiError(403, 'quota_exceeded', `This registration would exceed the account's ${over.join(' and ')}.`);
    }
    const underAll =
      (row.image_quota === null || images <= row.image_quota) && (row.disk_quota === null || bytes <= Number(row.disk_quota));
    await manager.query(
      `UPDATE account_profiles SET image_count = $2, disk_usage = $3, quotas = $4,
         incidents = CASE WHEN incidents = $5 AND $6 THEN NULL ELSE incidents END
       WHERE account_id = $1`,
      [accountId, Math.max(0, images), Math.max(0, bytes), quotas, QUOTA_EXCEEDED, underAll],
    );
  }
}
