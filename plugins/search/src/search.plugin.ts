import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, contribute, definePlugin, isBlobStoreOutage, TOKENS, TRACKING_SOURCES, type ExtensionRegistry, type MatchPipeline } from '@filigrane/core';
import { Search } from './search.entity.js';
import { SEARCH_EXECUTORS } from './search-executors.js';
import { SearchInit1763700005000 } from './search.migration.js';
import { SearchResolver } from './search.resolver.js';
import { SEARCH_QUEUE, SearchService } from './search.service.js';
import { searchRoutes } from './searches.routes.js';
import { TextSearchExecutor } from './text-search.executor.js';
import { MEDIA_EVENTS } from '@filigrane/plugin-media';
import { IdentificationService } from './identification.service.js';
import { ImageSearchExecutor } from './image-search.executor.js';
import { VisualIndexEntry } from './visual-index.entity.js';
import { VisualIndexFrames1763900001000, VisualIndexFrameSlots1764100001000, VisualIndexInit1763700007000, VisualIndexPostings1764300001000, VisualIndexCompactPostings1796200000000 } from './visual-index.migration.js';
import { VisualIndexService } from './visual-index.service.js';
import { MatchPipelineService } from './match-pipeline.service.js';
import { VideoMatchService } from './video-match.service.js';
import { VideoSearchExecutor } from './video-search.executor.js';

/**
 * Searches (text, and image through the visual index), synchronous or as polled jobs, and the
 * match pipeline that every tracking source feeds.
 */
export const searchPlugin = definePlugin({
  id: 'search',
  requires: ['media', 'matches'],
  entities: [Search, VisualIndexEntry],
  migrations: [SearchInit1763700005000, VisualIndexInit1763700007000, VisualIndexFrames1763900001000, VisualIndexFrameSlots1764100001000, VisualIndexPostings1764300001000, VisualIndexCompactPostings1796200000000],
  extensionPoints: [SEARCH_EXECUTORS, TRACKING_SOURCES],
  bindings: new ContainerModule(({ bind }) => {
    bind(SearchService).toSelf().inSingletonScope();
    bind(TextSearchExecutor).toSelf().inSingletonScope();
    bind(VisualIndexService).toSelf().inSingletonScope();
    bind(IdentificationService).toSelf().inSingletonScope();
    bind(ImageSearchExecutor).toSelf().inSingletonScope();
    bind(MatchPipelineService).toSelf().inSingletonScope();
    bind(VideoMatchService).toSelf().inSingletonScope();
    bind(VideoSearchExecutor).toSelf().inSingletonScope();
    bind(TOKENS.MatchPipeline).toService(MatchPipelineService);
  }),
  contributions: [
    contribute(SEARCH_EXECUTORS, (c) => c.get(TextSearchExecutor)),
    contribute(SEARCH_EXECUTORS, (c) => c.get(ImageSearchExecutor)),
    contribute(SEARCH_EXECUTORS, (c) => c.get(VideoSearchExecutor)),
    contribute(MEDIA_EVENTS, (c) => c.get(VisualIndexService)),
    contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(SearchService).forgetAccount(accountId)),
  ],
  routes: searchRoutes,
  resolvers: [SearchResolver],
  // Tracking sources are started once everything is bound, and stopped before the gateway closes.
  // They submit through TOKENS.MatchPipeline; only a start(pipeline) written against API 1.0-1.1 is
  // handed the pipeline (the CHANGELOG keeps that argument until 2.0).
  async onStart({ container, logger }) {
    for (const source of container.get<ExtensionRegistry>(TOKENS.Extensions).get(TRACKING_SOURCES)) {
      if (!source.start) continue;
      if (source.start.length === 0) {
        await source.start();
        continue;
      }
      logger.warn(`tracking source "${source.id}": start(pipeline) is deprecated since plugin API 1.2 and loses its argument in 2.0; inject TOKENS.MatchPipeline`);
      await source.start(container.get<MatchPipeline>(TOKENS.MatchPipeline));
    }
  },
  async onStop({ container }) {
    for (const source of container.get<ExtensionRegistry>(TOKENS.Extensions).get(TRACKING_SOURCES)) await source.stop?.();
  },
  jobs: (container) => [
    {
      queue: SEARCH_QUEUE,
      handler: (data: { id: string }) => container.get(SearchService).run(data.id),
      // Its worker killed at every try, or the file store down through every retry: the search says failed, not running forever.
      onFinalFailure: (data: { id: string }, failure) => container.get(SearchService).abandon(data.id, isBlobStoreOutage(failure)),
    },
  ],
});
