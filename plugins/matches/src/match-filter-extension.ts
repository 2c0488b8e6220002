import { createExtensionPoint, type FilterField } from '@filigrane/core';

/**
 * A filter of the v4 match list that another plugin owns (`review_state` by the review plugin): its
 * SQL is the contributor's, over its own tables, correlated with the match row `m` through the
 * columns of MATCH_ROW_CONTRACT only (`m.id`, `m.account_id`...). The field takes the filter
 * language's operators for its type (`=`, `!`, `__in`, `__isnull`...) like the built-in ones.
 */
export interface MatchFilterContribution {
  /** The query parameter's field name (`review_state`); never one of the built-in fields. */
  name: string;
  field: FilterField;
  /** One line for the API documentation. */
  description: string;
}

/** Declared by matches: `contribute(MATCH_FILTERS, () => ({ name, field, description }))`. */
export const MATCH_FILTERS = createExtensionPoint<MatchFilterContribution>('matches.filters');
