import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '@filigrane/core';

export { NOTIFICATION_KEYS, QUOTA_COUNTERS, type NotificationKey, type QuotaCounter } from './account-keys.js';
import type { NotificationKey, QuotaCounter } from './account-keys.js';

/** Everything about an account beyond its identity: usage, quotas, incidents, settings, keys. */
@Entity({ name: 'account_profiles' })
export class AccountProfile {
  @PrimaryColumn({ type: 'integer', name: 'account_id' })
  accountId!: number;

  /** null, 'free trial expired', 'payment overdue' or 'quota exceeded'. */
  @Column({ type: 'text', nullable: true })
  incidents!: string | null;

  @Column({ type: 'date', nullable: true })
  expires!: string | null;

  @Column({ type: 'integer', name: 'image_count', default: 0 })
  imageCount!: number;

  @Column({ type: 'integer', name: 'image_quota', nullable: true })
  imageQuota!: number | null;

  @Column({ type: 'bigint', name: 'disk_usage', default: 0, transformer: bigintAsNumber })
  diskUsage!: number;

  @Column({ type: 'bigint', name: 'disk_quota', nullable: true, transformer: bigintAsNumber })
  diskQuota!: number | null;

  /** Counters and their `_limit`s, keyed as the spec's quotas object. */
  @Column({ type: 'jsonb', default: {} })
  quotas!: Record<string, number | null>;

  @Column({ type: 'text', default: 'en' })
  lang!: string;

  @Column({ type: 'jsonb', default: {} })
  notifications!: Record<string, boolean>;

  @Column({ type: 'text', array: true, name: 'notif_site_countries', default: () => "'{}'" })
  notifSiteCountries!: string[];

  /** RSA public key (SPKI DER) the offline tool encrypts registration files with. */
  @Column({ type: 'bytea', name: 'public_key_der' })
  publicKeyDer!: Buffer;

  /** The matching PKCS#8 private key, sealed with the service's master key. */
  @Column({ type: 'text', name: 'sealed_private_key' })
  sealedPrivateKey!: string;
}
