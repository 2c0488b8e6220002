export { aggregationsPlugin } from './aggregations.plugin.js';
export { AggregationQueryService, type AggregationRow, type AggregationChange } from './aggregation-query.service.js';
export { AGGREGATIONS, AGGREGATION_NAMES, type AggregationName } from './aggregation-catalog.js';
export { Aggregation, AggregationMedia, AggregationSite, aggregationObject } from './aggregations.resolver.js';
