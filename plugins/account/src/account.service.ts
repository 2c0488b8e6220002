import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { notFound, TOKENS, type SecretBox } from '@filigrane/core';
import { ApiKeyService, IdentityService, type AccountIdentity as Account, type NewAccount } from '@filigrane/plugin-auth';
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

interface ViewRow {
  username: string;
  full_name: string;
  email: string;
  home: string;
  incidents: string | null;
  expires: string | null;
  image_count: number;
  image_quota: number | null;
  disk_usage: number;
  disk_quota: number | null;
  quotas: Record<string, number | null>;
  permissions: string[] | null;
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

  /** Accounts with any of these notification flags set (a source serves the accounts that follow it), by id. */
  async withAnyNotification(flags: readonly string[]): Promise<number[]> {
    if (flags.length === 0) return [];
    const rows: { account_id: number }[] = await this.db.query(
      `SELECT account_id FROM account_profiles WHERE EXISTS (
         SELECT 1 FROM jsonb_each_text(notifications) f WHERE f.key = ANY($1) AND f.value = 'true') ORDER BY account_id`,
      [flags],
    );
    return rows.map((r) => r.account_id);
  }

  /** The spec's Account object, read in one round trip (it is the most requested resource). */
  async view(accountId: number): Promise<AccountView> {
    const rows: ViewRow[] = await this.db.query(
      `SELECT a.username, a.full_name, a.email, a.home, p.incidents, p.expires::text AS expires, p.image_count,
              p.image_quota, p.disk_usage::float8 AS disk_usage, p.disk_quota::float8 AS disk_quota, p.quotas,
              a.permissions
       FROM account_directory a JOIN account_profiles p ON p.account_id = a.id WHERE a.id = $1`,
      [accountId],
    );
    const r = rows[0];
    if (!r) throw notFound('No such account.');
    const view: AccountView = {
      username: r.username,
      full_name: r.full_name,
      email: r.email,
      incidents: r.incidents,
      image_count: r.image_count,
      image_quota: r.image_quota,
      disk_usage: r.disk_usage,
      disk_quota: r.disk_quota,
      home: r.home,
      permissions: r.permissions ?? [],
      quotas: quotasView(r.quotas),
    };
    if (r.incidents && EXPIRING_INCIDENTS.has(r.incidents)) view.expires = r.expires;
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
