import { inject, injectable } from 'inversify';
import type { AccountProvisioner, AccountQuotas } from '@filigrane/core';
import { IdentityService } from '@filigrane/plugin-auth';
import { AccountService, type QuotaLimits } from './account.service.js';

/** `TOKENS.AccountProvisioner`: an account with its API key and permissions, as an operator makes one. */
@injectable()
export class AccountProvisioningService implements AccountProvisioner {
  constructor(
    @inject(AccountService) private readonly accounts: AccountService,
    @inject(IdentityService) private readonly identities: IdentityService,
  ) {}

  async create(input: { username: string; email: string; fullName: string; permissions?: string[] }, quotas: AccountQuotas = {}): Promise<{ id: number; apiKey: string }> {
    const { permissions = [], ...identity } = input;
    const { account, apiKey } = await this.accounts.create(identity, quotas as QuotaLimits);
    for (const permission of permissions) await this.identities.grant(account.id, permission);
    return { id: account.id, apiKey };
  }
}
