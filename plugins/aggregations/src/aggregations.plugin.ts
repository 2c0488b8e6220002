import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, addFilterFields, contribute, definePlugin, GRAPHQL_SCHEMA_HOOKS, TOKENS } from '@filigrane/core';
import type { DataSource } from 'typeorm';
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
  contributions: [
    // The match filters other plugins contribute (review_state) filter the groups in GraphQL too.
    contribute(GRAPHQL_SCHEMA_HOOKS, (container) => () => addFilterFields(AggregationFilter, container.get(AggregationQueryService).contributedFields())),
    // After matches' hook (this plugin loads after it): groups the triggers emptied, and those users edited, go.
    contribute(ACCOUNT_DELETED_HOOKS, (c) => async (accountId: number) => void (await c.get<DataSource>(TOKENS.DataSource).query('DELETE FROM aggregations WHERE account_id = $1', [accountId]))),
  ],
});
