import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, contribute, definePlugin } from '@filigrane/core';
import { LOCAL_URLS } from '@filigrane/plugin-media';
import { WatermarkingJob } from './watermarking.entity.js';
import { watermarkingJobs } from './watermarking.jobs.js';
import { WatermarkingInit1763700006000 } from './watermarking.migration.js';
import { WatermarkingQuota1763900000200 } from './watermarking-quota.migration.js';
import { WatermarkingResolver } from './watermarking.resolver.js';
import { watermarkingRoutes } from './watermarking.routes.js';
import { WatermarkingService } from './watermarking.service.js';
import { WATERMARKING_SETTINGS } from './watermarking.settings.js';

/** The watermarking endpoint: images watermarked by pg-boss jobs, assets in the BlobStore until they expire. */
export const watermarkingPlugin = definePlugin({
  id: 'watermarking',
  // account: the public key the .lmk is sealed with; media: the fetcher and the LOCAL_URLS point.
  requires: ['auth', 'account', 'media'],
  entities: [WatermarkingJob],
  migrations: [WatermarkingInit1763700006000, WatermarkingQuota1763900000200],
  bindings: new ContainerModule(({ bind }) => {
    bind(WatermarkingService).toSelf().inSingletonScope();
  }),
  contributions: [
    contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(WatermarkingService).forgetAccount(accountId)),
    contribute(LOCAL_URLS, (c) => {
      const service = c.get(WatermarkingService);
      return (url, principal) => service.resolveLocal(url, principal.accountId);
    }),
  ],
  routes: watermarkingRoutes,
  resolvers: [WatermarkingResolver],
  jobs: watermarkingJobs,
  settings: WATERMARKING_SETTINGS,
});
