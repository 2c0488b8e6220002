import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, addFilterFields, contribute, definePlugin, GRAPHQL_SCHEMA_HOOKS } from '@filigrane/core';
import { Match, Site } from './match.entity.js';
import { CreditNamesService } from './credit-names.service.js';
import { MATCH_FILTERS } from './match-filter-extension.js';
import { MatchQueryService } from './match-query.service.js';
import { MatchRecorder } from './match-recorder.service.js';
import { MatchesInit1763700008000, MatchesSightedImage1763800000000, MatchesSiteDirectory1764300003000, MatchesRegion1764900002000, MatchesVideo1763850000000 } from './matches.migration.js';
import { MatchesResolver, MatchFilter } from './matches.resolver.js';
import { matchRoutes } from './matches.routes.js';
import { MatchBulkService } from './match-bulk.service.js';
import { matchBulkRoutes } from './match-bulk.routes.js';
import { MatchDashboardResolver } from './match-dashboard.resolver.js';
import { MatchEventFieldResolver } from './match-event.resolver.js';
import { MatchHistogramService } from './match-histogram.service.js';

/** Where registered media were found: storage, v3 and v4 listings, tags and export. */
export const matchesPlugin = definePlugin({
  id: 'matches',
  requires: ['media', 'blacklist'],
  extensionPoints: [MATCH_FILTERS],
  entities: [Site, Match],
  migrations: [MatchesInit1763700008000, MatchesSightedImage1763800000000, MatchesVideo1763850000000, MatchesSiteDirectory1764300003000, MatchesRegion1764900002000],
  bindings: new ContainerModule(({ bind }) => {
    bind(MatchRecorder).toSelf().inSingletonScope();
    bind(MatchQueryService).toSelf().inSingletonScope();
    bind(CreditNamesService).toSelf().inSingletonScope();
    bind(MatchBulkService).toSelf().inSingletonScope();
    bind(MatchHistogramService).toSelf().inSingletonScope();
  }),
  routes: [...matchRoutes, ...matchBulkRoutes],
  resolvers: [MatchesResolver, MatchDashboardResolver, MatchEventFieldResolver],
  contributions: [
    contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(MatchRecorder).forgetAccount(accountId)),
    // The contributed filters (review_state) get their typed GraphQL field too (MatchFilter.reviewState).
    contribute(GRAPHQL_SCHEMA_HOOKS, (container) => () => {
      const contributed = container.get(MatchQueryService).contributedFields();
      addFilterFields(MatchFilter, contributed);
    }),
  ],
});
