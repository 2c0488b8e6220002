import { ContainerModule } from 'inversify';
import { definePlugin, TOKENS, type JobSpec } from '@filigrane/core';
import { AccountProfile } from './account.entities.js';
import { AccountDeletion1764100000000 } from './account-deletion.migration.js';
import { AccountDeletionService, DELETE_QUEUE, DELETION_SWEEP_QUEUE, DELETION_SWEEP_SCHEDULE } from './account-deletion.service.js';
import { AccountInit1763700002000 } from './account.migration.js';
import { ACCOUNT_SETTINGS } from './account.settings.js';
import { AccountResolver } from './account.resolver.js';
import { accountRoutes } from './account.routes.js';
import { AccountService } from './account.service.js';
import { AccountProvisioningService } from './account-provisioning.service.js';
import { AccountUsageService } from './account-usage.service.js';
import { DownloadService } from './download.service.js';
import { SettingsService } from './settings.service.js';

/** The account: profile, usage and quotas, settings, key pair, downloads and deletion. */
export const accountPlugin = definePlugin({
  id: 'account',
  requires: ['auth'],
  entities: [AccountProfile],
  migrations: [AccountInit1763700002000, AccountDeletion1764100000000],
  settings: ACCOUNT_SETTINGS,
  bindings: new ContainerModule(({ bind }) => {
    bind(AccountService).toSelf().inSingletonScope();
    bind(AccountUsageService).toSelf().inSingletonScope();
    bind(SettingsService).toSelf().inSingletonScope();
    bind(DownloadService).toSelf().inSingletonScope();
    bind(AccountDeletionService).toSelf().inSingletonScope();
    bind(TOKENS.AccountProvisioner).to(AccountProvisioningService).inSingletonScope();
  }),
  routes: accountRoutes,
  resolvers: [AccountResolver],
  jobs: (container): JobSpec<never>[] => {
    const deletion = () => container.get(AccountDeletionService);
    return [
      { queue: DELETE_QUEUE, handler: async (data: { accountId: number }) => void (await deletion().run(data.accountId)) },
      { queue: DELETION_SWEEP_QUEUE, schedule: DELETION_SWEEP_SCHEDULE, handler: async () => void (await deletion().sweep()) },
    ];
  },
});
