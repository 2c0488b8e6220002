import { ContainerModule } from 'inversify';
import { definePlugin } from '@filigrane/core';
import { AccountProfile } from './account.entities.js';
import { AccountInit1763700002000 } from './account.migration.js';
import { AccountResolver } from './account.resolver.js';
import { accountRoutes } from './account.routes.js';
import { AccountService } from './account.service.js';
import { AccountUsageService } from './account-usage.service.js';
import { DownloadService } from './download.service.js';
import { SettingsService } from './settings.service.js';

/** The account: profile, usage and quotas, settings, key pair and downloads. */
export const accountPlugin = definePlugin({
  id: 'account',
  requires: ['auth'],
  entities: [AccountProfile],
  migrations: [AccountInit1763700002000],
  bindings: new ContainerModule(({ bind }) => {
    bind(AccountService).toSelf().inSingletonScope();
    bind(AccountUsageService).toSelf().inSingletonScope();
    bind(SettingsService).toSelf().inSingletonScope();
    bind(DownloadService).toSelf().inSingletonScope();
  }),
  routes: accountRoutes,
  resolvers: [AccountResolver],
});
