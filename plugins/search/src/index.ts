export { searchPlugin } from './search.plugin.js';
export { SearchService, searchUrl } from './search.service.js';
export { SEARCH_EXECUTORS, searchNameOf, type SearchExecutor, type SearchScope } from './search-executors.js';
export { IdentificationService, EXACT_STRENGTH, type IdentifyOptions, type Identified } from './identification.service.js';
export { VisualIndexService } from './visual-index.service.js';
export { ImageSearchExecutor, type ImageQuery } from './image-search.executor.js';
export { MatchPipelineService } from './match-pipeline.service.js';
export { SearchResultType as SearchResult, SearchMatch, toResult as searchResult } from './search-object-types.js';
