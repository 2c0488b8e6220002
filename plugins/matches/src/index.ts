export { matchesPlugin } from './matches.plugin.js';
export { MatchRecorder, sightedImage, type MatchInput, type RecordedMatch } from './match-recorder.service.js';
export { MatchQueryService, type MatchRef, type MatchSelection } from './match-query.service.js';
export { MATCH_FILTERS, type MatchFilterContribution } from './match-filter-extension.js';
export { CreditNamesService } from './credit-names.service.js';
export type { SightedImage } from './match-types.js';
export { siteOf } from './site-info.js';
export { MATCH_ROW_CONTRACT, type MatchRowColumn } from './match-row-contract.js';
// GraphQL object types: other plugins add fields to them (`@Resolver(() => Match)` + `@FieldResolver`).
export { Match, MatchMedia, MatchSite, MatchWebPage, MatchPage, V3Match, V3MatchPage, V3MatchImage } from './match-object-types.js';
export { matchObject } from './matches.resolver.js';
// The caller's matches by id as `Match` objects, batched per request (a relation from another plugin's object).
export { matchLoader } from './match-loader.js';
// Bulk edits by ids and/or the listing's filters (other plugins walk a selection with MatchQueryService.refs), and histograms.
export { MatchBulkService, MAX_IDS, type MatchBulkChange, type MatchBulkResult } from './match-bulk.service.js';
export { MatchHistogramService, type Histogram, type HistogramRequest } from './match-histogram.service.js';
export { MatchFilter, matchFilterQuery } from './match-filter-arg.js';
