import { ContainerModule } from 'inversify';
import { contribute, CORE_API_VERSION, definePlugin, isBlobStoreOutage, TRACKING_SOURCES, type TrackingSource } from '@filigrane/core';
import { SEARCH_EXECUTORS } from '@filigrane/plugin-search';
import { DocumentSearchExecutor } from './document-search.executor.js';
import { PressAnalysisService } from './press-analysis.service.js';
import { PressInboxService } from './press-inbox.service.js';
import { PressIssue } from './press-issue.entity.js';
import { PRESS_QUEUE, PressIssueService } from './press-issue.service.js';
import { PressIssueDigest1764100000000, PressIssues1763900000000 } from './press.migration.js';
import { PressResolver } from './press.resolver.js';
import { pressRoutes } from './press.routes.js';
import { PRESS_SETTINGS } from './press.settings.js';

export const PRESS_INBOX_QUEUE = 'press.inbox';

/** The press as a tracking source: its sightings go through the one match pipeline. */
const pressSource: TrackingSource = { id: 'press', description: 'Images printed in press issues (PDF), with their pages and credit lines' };

/**
 * Press analysis: press issues (PDF) ingested by operators, analysed page by page for every
 * account that tracks press (press matches, credit matches), and searches by document.
 */
export const pressPlugin = definePlugin({
  id: 'press',
  coreApi: CORE_API_VERSION,
  settings: PRESS_SETTINGS,
  requires: ['media', 'matches', 'search', 'account'],
  entities: [PressIssue],
  migrations: [PressIssues1763900000000, PressIssueDigest1764100000000],
  bindings: new ContainerModule(({ bind }) => {
    bind(PressIssueService).toSelf().inSingletonScope();
    bind(PressAnalysisService).toSelf().inSingletonScope();
    bind(PressInboxService).toSelf().inSingletonScope();
    bind(DocumentSearchExecutor).toSelf().inSingletonScope();
  }),
  contributions: [
    contribute(SEARCH_EXECUTORS, (c) => c.get(DocumentSearchExecutor)),
    contribute(TRACKING_SOURCES, () => pressSource),
  ],
  routes: pressRoutes,
  resolvers: [PressResolver],
  jobs: (container) => [
    {
      queue: PRESS_QUEUE,
      handler: (data: { id: number }) => container.get(PressAnalysisService).process(data.id),
      // Its worker killed at every try (a crafted PDF), or the file store down through every retry: the issue says failed, not running forever.
      onFinalFailure: (data: { id: number }, failure) => container.get(PressAnalysisService).abandon(data.id, isBlobStoreOutage(failure)),
    },
    // The inbox folder is looked at every minute by one worker (pg-boss schedules run once).
    ...(container.get(PressInboxService).folder
      ? [{ queue: PRESS_INBOX_QUEUE, schedule: '* * * * *', handler: async () => void (await container.get(PressInboxService).scan()) }]
      : []),
  ],
  async onStop({ container }) {
    await container.get(PressAnalysisService).ocr.close();
  },
});
