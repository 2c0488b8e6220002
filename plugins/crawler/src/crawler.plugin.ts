import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, contribute, definePlugin, TRACKING_SOURCES } from '@filigrane/core';
import { CRAWL_ARCHIVE, CrawlArchiveService } from './crawl-archive.service.js';
import { CrawlRunner } from './crawl-runner.service.js';
import { CRAWL_QUEUE, CrawlService } from './crawl.service.js';
import { crawlerSource } from './crawler-source.js';
import { CRAWLER_SETTINGS } from './crawl-settings.js';
import { CrawlBatch, CrawlSession } from './crawler.entities.js';
import { CrawlPageTakeovers1796400000000 } from './crawl-page-takeovers.migration.js';
import { CrawlQueryPaths1796300000000 } from './crawl-query-paths.migration.js';
import { CrawlerInit1763800008000 } from './crawler.migration.js';
import { CrawlBatchResolver, CrawlerResolver } from './crawler.resolver.js';
import { crawlingRoutes } from './crawling.routes.js';

/** The web crawler tracking source: v3 crawling sessions and batches, polite resumable crawls, web and credit sightings. */
export const crawlerPlugin = definePlugin({
  id: 'crawler',
  requires: ['auth', 'search', 'matches'],
  entities: [CrawlSession, CrawlBatch],
  migrations: [CrawlerInit1763800008000, CrawlQueryPaths1796300000000, CrawlPageTakeovers1796400000000],
  settings: CRAWLER_SETTINGS,
  bindings: new ContainerModule(({ bind }) => {
    bind(CrawlService).toSelf().inSingletonScope();
    bind(CrawlRunner).toSelf().inSingletonScope();
    bind(CRAWL_ARCHIVE).to(CrawlArchiveService).inSingletonScope();
  }),
  routes: crawlingRoutes,
  resolvers: [CrawlerResolver, CrawlBatchResolver],
  contributions: [
    contribute(TRACKING_SOURCES, () => crawlerSource),
    contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(CrawlService).forgetAccount(accountId)),
  ],
  jobs: (container) => [
    {
      queue: CRAWL_QUEUE,
      // The job only makes this process join the crawl: the crawl's state lives in PostgreSQL,
      // so the job ends at once and a long crawl never holds a pg-boss slot or hits its expiry.
      handler: async (data: { sessionId: number; cycle: number }) => container.get(CrawlRunner).join(data.sessionId, data.cycle),
      // A crawl asked for starts within half a second, not pg-boss's default two.
      pollingIntervalSeconds: 0.5,
    },
    {
      queue: 'crawler.tick',
      schedule: '* * * * *',
      handler: async () => container.get(CrawlService).tick(),
    },
  ],
  async onStart(ctx) {
    // After a restart (kill -9 included), crawls left pending or running are dispatched again.
    await ctx.container.get(CrawlService).recover(0).catch(() => undefined);
  },
  async onStop(ctx) {
    await ctx.container.get(CrawlRunner).stop();
  },
});
