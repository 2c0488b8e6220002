import { ContainerModule } from 'inversify';
import { addFilterFields, contribute, definePlugin, GRAPHQL_SCHEMA_HOOKS } from '@filigrane/core';
import { AggregationQueryService } from './aggregation-query.service.js';
import { AggregationsInit1763900000000 } from './aggregations.migration.js';
import { AggregationFilter, AggregationsResolver } from './aggregations.resolver.js';
import { AggregationBulkResolver } from './aggregation-bulk.resolver.js';
import { aggregationRoutes } from './aggregations.routes.js';

/**
 * Live groupings of the account's matches (v3 aggregations): rows kept by a trigger on the
 * matches table, so every source's matches count, in the transaction that records them.
 */
export const aggregationsPlugin = definePlugin({
  id: 'aggregations',
  requires: ['media', 'matches'],
  migrations: [AggregationsInit1763900000000],
  bindings: new ContainerModule(({ bind }) => {
    bind(AggregationQueryService).toSelf().inSingletonScope();
  }),
  routes: aggregationRoutes,
  resolvers: [AggregationsResolver, AggregationBulkResolver],
  // The match filters other plugins contribute (review_state) filter the groups in GraphQL too.
  contributions: [contribute(GRAPHQL_SCHEMA_HOOKS, (container) => () => addFilterFields(AggregationFilter, container.get(AggregationQueryService).contributedFields()))],
});
