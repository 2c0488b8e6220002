import { badRequest, type FilterOp, type FilterValue } from '@filigrane/plugin-api';
import type { MatchFilterContribution } from '@filigrane/plugin-matches';
import { REVIEW_STATES } from './review-states.js';

// The review plugin's SQL over its own table, correlated with the match row `m` by its contract columns.
const STATE_SQL = "COALESCE((SELECT r.state FROM review_states r WHERE r.account_id = m.account_id AND r.match_id = m.id), 'new')";
const LICENSE_SQL = '(SELECT r.license_id FROM review_states r WHERE r.account_id = m.account_id AND r.match_id = m.id)';

/** Only states are values of `review_state`: anything else is a 400 naming the parameter, not an empty page. */
function checkStates(op: FilterOp, value: FilterValue): string | undefined {
  if (op === 'eq' || op === 'ne' || op === 'in') {
    const values = (Array.isArray(value) ? value : [value]) as unknown[];
    const bad = values.filter((v) => !(REVIEW_STATES as readonly unknown[]).includes(v));
    if (bad.length) {
      const param = op === 'ne' ? '!review_state' : op === 'in' ? 'review_state__in' : 'review_state';
      throw badRequest('invalid_filter', { [param]: [`"${String(bad[0]).slice(0, 50)}" is not a review state (${REVIEW_STATES.join(', ')}).`] });
    }
  }
  return undefined; // the filter language's own SQL over STATE_SQL
}

/** `review_state` (with `!`, `__in`...) and `review_license_id` on GET /api/v4/matches/ and every filter-driven route. */
export const REVIEW_FILTERS: MatchFilterContribution[] = [
  {
    name: 'review_state',
    field: { type: 'string', sql: STATE_SQL, custom: checkStates },
    description: `Review state: ${REVIEW_STATES.join(', ')} (a match nobody reviewed is new)`,
  },
  {
    name: 'review_license_id',
    field: { type: 'integer', sql: LICENSE_SQL },
    description: 'The licensee a licensed match is licensed under',
  },
];
