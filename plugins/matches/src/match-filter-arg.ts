import { filterToQuery, type QueryValue } from '@filigrane/core';
import { MatchFilter } from './matches.resolver.js';

// The GraphQL `MatchFilter` input and its translation to the REST query string, for the resolvers
// that take a match filter besides the listing (histogram, bulk edits) and for other plugins.
export { MatchFilter };
export const matchFilterQuery = (filter: object | null | undefined): Record<string, QueryValue> => filterToQuery(filter, MatchFilter);
