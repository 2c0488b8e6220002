export { searchPlugin } from './search.plugin.js';
export { SearchService, searchUrl } from './search.service.js';
export { SEARCH_EXECUTORS, type SearchExecutor, type SearchScope } from './search-executors.js';
