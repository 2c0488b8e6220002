export { FetchError, type FetchErrorCode } from './fetch-error.js';
export { isForbiddenAddress } from './forbidden-address.js';
export { AllowList, allowHostsFromEnv } from './allow-list.js';
export { guardedLookup, type Resolver } from './guarded-lookup.js';
export { parseDataUri } from './data-uri.js';
export { safeFetch, type SafeFetchOptions, type FetchedResource } from './safe-fetch.js';
export { fetchResource } from './fetch-resource.js';
export { resolveClientUrl, fetchErrorStatus, type LocalResolver, type ResolveUrlOptions } from './url-resolver.js';
