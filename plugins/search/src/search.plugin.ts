import { ContainerModule } from 'inversify';
import { contribute, definePlugin } from '@filigrane/core';
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
import { VisualIndexInit1763700007000 } from './visual-index.migration.js';
import { VisualIndexService } from './visual-index.service.js';

/** Searches (text now; image through the visual index), synchronous or as polled jobs. */
export const searchPlugin = definePlugin({
  id: 'search',
  requires: ['media'],
  entities: [Search, VisualIndexEntry],
  migrations: [SearchInit1763700005000, VisualIndexInit1763700007000],
  extensionPoints: [SEARCH_EXECUTORS],
  bindings: new ContainerModule(({ bind }) => {
    bind(SearchService).toSelf().inSingletonScope();
    bind(TextSearchExecutor).toSelf().inSingletonScope();
    bind(VisualIndexService).toSelf().inSingletonScope();
    bind(IdentificationService).toSelf().inSingletonScope();
    bind(ImageSearchExecutor).toSelf().inSingletonScope();
  }),
  contributions: [
    contribute(SEARCH_EXECUTORS, (c) => c.get(TextSearchExecutor)),
    contribute(SEARCH_EXECUTORS, (c) => c.get(ImageSearchExecutor)),
    contribute(MEDIA_EVENTS, (c) => c.get(VisualIndexService)),
  ],
  routes: searchRoutes,
  resolvers: [SearchResolver],
  jobs: (container) => [{ queue: SEARCH_QUEUE, handler: (data: { id: string }) => container.get(SearchService).run(data.id) }],
});
