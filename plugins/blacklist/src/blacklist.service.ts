import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { notFound, TOKENS, validationError } from '@filigrane/core';
import { domainAndParents, normaliseDomain } from './domain-name.js';
import { BlacklistedDomain } from './blacklist.entities.js';

export function parseDomain(body: unknown): string {
  const url = (body as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string' || url.trim() === '') {
    throw validationError([{ field: 'url', code: 'required', details: 'This field is required.' }]);
  }
  const domain = normaliseDomain(url);
  if (!domain) {
    throw validationError([{ field: 'url', code: 'invalid_domain', details: `"${url}" is not a domain name with an extension (for example example.com).` }]);
  }
  return domain;
}

/** Per-account blacklist of domains whose matches are filtered out. */
@injectable()
export class BlacklistService {
  constructor(@inject(TOKENS.DataSource) private readonly db: DataSource) {}

  /** Adds a domain; `created` is false when it was already listed (the call is idempotent). */
  async add(accountId: number, domain: string): Promise<{ domain: string; created: boolean }> {
    const result = await this.db.query(
      `INSERT INTO blacklisted_domains (account_id, domain) VALUES ($1, $2) ON CONFLICT (account_id, domain) DO NOTHING RETURNING id`,
      [accountId, domain],
    );
    return { domain, created: (result as unknown[]).length > 0 };
  }

  async list(accountId: number): Promise<string[]> {
    const rows = await this.db.manager.find(BlacklistedDomain, { where: { accountId }, order: { domain: 'ASC' } });
    return rows.map((r) => r.domain);
  }

  async remove(accountId: number, domain: string): Promise<void> {
    const result = await this.db.manager.delete(BlacklistedDomain, { accountId, domain });
    if (!result.affected) throw notFound(`"${domain}" is not in the blacklist.`);
  }

  /** True when the host or one of its parent domains is blacklisted (www.example.com by example.com). */
  async isBlacklisted(accountId: number, host: string): Promise<boolean> {
    const domain = normaliseDomain(host);
    if (!domain) return false;
    const rows: unknown[] = await this.db.query(
      'SELECT 1 FROM blacklisted_domains WHERE account_id = $1 AND domain = ANY($2) LIMIT 1',
      [accountId, domainAndParents(domain)],
    );
    return rows.length > 0;
  }
}
