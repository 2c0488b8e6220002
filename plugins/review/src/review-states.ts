/** A match's review state (issue 21): where the rights holder stands on one copy. */
export const REVIEW_STATES = ['new', 'unsure', 'licensed', 'infringing', 'not_a_match', 'ignored'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

export const isReviewState = (v: unknown): v is ReviewState => typeof v === 'string' && (REVIEW_STATES as readonly string[]).includes(v);
