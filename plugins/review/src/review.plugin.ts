import { ACCOUNT_DELETED_HOOKS, contribute, ContainerModule, definePlugin, EVENT_LISTENERS, onEvent, type JobSpec } from '@filigrane/plugin-api';
import { MATCH_FILTERS } from '@filigrane/plugin-matches';
import { DIGEST_SECTIONS } from '@filigrane/plugin-notifications';
import { WEBHOOK_EVENT_TYPES } from '@filigrane/plugin-webhooks';
import { LICENCE_QUEUE, LicenseeService } from './licensee.service.js';
import { REVIEW_SERVICE } from './review.api.js';
import { reviewDigestSection } from './review-digest.js';
import { REVIEW_FILTERS } from './review-filter.js';
import { ReviewInit1764108000000 } from './review.migration.js';
import { MatchReviewFieldResolver } from './match-review.resolver.js';
import { ReviewResolver } from './review.resolver.js';
import { ReviewEventsResolver } from './review-events.resolver.js';
import { reviewRoutes } from './review.routes.js';
import { ReviewStore } from './review.service.js';
import { REVIEW_SETTINGS } from './review.settings.js';

/**
 * What the rights holder decided about each match (new, unsure, licensed, infringing, not a match,
 * ignored) with its audit trail, set one by one or by any filter of the match list; and the
 * licensees, whose rule licenses the matches they cover.
 */
export const reviewPlugin = definePlugin({
  id: 'review',
  pluginApi: '^1.4.0',
  requires: ['matches', 'webhooks', 'notifications'],
  settings: REVIEW_SETTINGS,
  migrations: [ReviewInit1764108000000],
  bindings: new ContainerModule(({ bind }) => {
    bind(ReviewStore).toSelf().inSingletonScope();
    bind(REVIEW_SERVICE).toService(ReviewStore);
    bind(LicenseeService).toSelf().inSingletonScope();
  }),
  routes: reviewRoutes,
  resolvers: [ReviewResolver, MatchReviewFieldResolver, ReviewEventsResolver],
  contributions: [
    ...REVIEW_FILTERS.map((f) => contribute(MATCH_FILTERS, () => f)),
    contribute(WEBHOOK_EVENT_TYPES, () => ['match.reviewed']),
    contribute(DIGEST_SECTIONS, (c) => (req) => reviewDigestSection(c.get(ReviewStore), req)),
    contribute(EVENT_LISTENERS, (c) => onEvent('match.created', (e) => c.get(LicenseeService).onMatchCreated(e.accountId, String(e.data.id)))),
    contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(ReviewStore).forgetAccount(accountId)),
  ],
  jobs: (c) => [
    {
      queue: LICENCE_QUEUE,
      handler: async (data: { accountId: number }) => void (await c.get(LicenseeService).reapply(data.accountId)),
    } as JobSpec<never>,
  ],
});
