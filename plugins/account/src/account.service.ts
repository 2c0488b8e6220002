import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { notFound, TOKENS, type SecretBox } from '@filigrane/core';
import { ApiKeyService, IdentityService, type Account, type NewAccount } from '@filigrane/plugin-auth';
import { AccountProfile, QUOTA_COUNTERS } from './account.entities.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Incidents that schedule the account's deletion, so `expires` is shown with them. */
const EXPIRING_INCIDENTS = new Set(['free trial expired', 'payment overdue']);

export interface QuotaLimits {
  imageQuota?: number | null;
  diskQuota?: number | null;
  /** `<counter>_limit` values for the quotas object. */
  limits?: Partial<Record<`${(typeof QUOTA_COUNTERS)[number]}_limit`, number | null>>;
}

export interface AccountView {
  username: string;
  full_name: string;
  email: string;
  incidents: string | null;
  expires?: string | null;
  image_count: number;
  image_quota: number | null;
  disk_usage: number;
  disk_quota: number | null;
  home: string;
  permissions: string[];
  quotas: Record<string, number | null>;
}

/** The quotas object with all ten keys, whatever the stored JSON holds. */
export function quotasView(stored: Record<string, number | null>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const c of QUOTA_COUNTERS) {
    out[c] = Number(stored[c] ?? 0);
    out[`${c}_limit`] = stored[`${c}_limit`] ?? null;
  }
  return out;
}

@injectable()
export class AccountService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.SecretBox) private readonly box: SecretBox,
    @inject(IdentityService) private readonly identities: IdentityService,
    @inject(ApiKeyService) private readonly apiKeys: ApiKeyService,
  ) {}

  /** Creates the identity, its API key and its profile (with a fresh RSA key pair) in one transaction. */
  async create(input: NewAccount, quotas: QuotaLimits = {}): Promise<{ account: Account; apiKey: string }> {
    const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
      modulusLength: 3072,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'der' },
    });
    return this.db.transaction(async (manager) => {
      const account = await this.identities.create(input, manager);
      const apiKey = await this.apiKeys.issue(account.id, manager);
      const counters: Record<string, number | null> = {};
      for (const c of QUOTA_COUNTERS) {
        counters[c] = 0;
        counters[`${c}_limit`] = quotas.limits?.[`${c}_limit`] ?? null;
      }
      await manager.save(
        manager.create(AccountProfile, {
          accountId: account.id,
          imageQuota: quotas.imageQuota ?? null,
          diskQuota: quotas.diskQuota ?? null,
          quotas: counters,
          notifications: {},
          notifSiteCountries: [],
          publicKeyDer: publicKey,
          sealedPrivateKey: this.box.seal(privateKey),
        }),
      );
      return { account, apiKey };
    });
  }

  async profile(accountId: number): Promise<AccountProfile> {
    const profile = await this.db.manager.findOne(AccountProfile, { where: { accountId } });
    if (!profile) throw notFound('No such account.');
    return profile;
  }

  async view(accountId: number): Promise<AccountView> {
    const [account, profile, permissions] = await Promise.all([
      this.identities.findById(accountId),
      this.profile(accountId),
      this.identities.permissions(accountId),
    ]);
    if (!account) throw notFound('No such account.');
    const view: AccountView = {
      username: account.username,
      full_name: account.fullName,
      email: account.email,
      incidents: profile.incidents,
      image_count: profile.imageCount,
      image_quota: profile.imageQuota,
      disk_usage: profile.diskUsage,
      disk_quota: profile.diskQuota,
      home: account.home,
      permissions,
      quotas: quotasView(profile.quotas),
    };
    if (profile.incidents && EXPIRING_INCIDENTS.has(profile.incidents)) view.expires = profile.expires;
    return view;
  }

  /** The account's private key (PKCS#8 DER), for opening registration files. */
  async privateKey(accountId: number): Promise<Buffer> {
    return this.box.open((await this.profile(accountId)).sealedPrivateKey);
  }

  async publicKey(accountId: number): Promise<Buffer> {
    return (await this.profile(accountId)).publicKeyDer;
  }
}
