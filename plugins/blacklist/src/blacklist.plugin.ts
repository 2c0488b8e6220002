import { ContainerModule } from 'inversify';
import { definePlugin } from '@filigrane/core';
import { BlacklistedDomain } from './blacklist.entities.js';
import { BlacklistInit1763700003000 } from './blacklist.migration.js';
import { BlacklistResolver } from './blacklist.resolver.js';
import { blacklistRoutes } from './blacklist.routes.js';
import { BlacklistService } from './blacklist.service.js';

/** Domains whose matches the account does not want to see. */
export const blacklistPlugin = definePlugin({
  id: 'blacklist',
  requires: ['auth'],
  entities: [BlacklistedDomain],
  migrations: [BlacklistInit1763700003000],
  bindings: new ContainerModule(({ bind }) => {
    bind(BlacklistService).toSelf().inSingletonScope();
  }),
  routes: blacklistRoutes,
  resolvers: [BlacklistResolver],
});
