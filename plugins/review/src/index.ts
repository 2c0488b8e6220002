import type { MatchReviewedData } from './review.api.js';

export { reviewPlugin } from './review.plugin.js';
export { reviewPlugin as default } from './review.plugin.js';
export {
  REVIEW_SERVICE,
  type ReviewService,
  type MatchReview,
  type ReviewActor,
  type ReviewChange,
  type ReviewChangeResult,
  type SetStateOptions,
  type MatchReviewedData,
} from './review.api.js';
export { REVIEW_STATES, isReviewState, type ReviewState } from './review-states.js';
export { MatchReviewType, ReviewStateValue } from './review.resolver.js';
export { MatchReviewedEvent } from './review-events.resolver.js';

declare module '@filigrane/core' {
  interface EventPayloads {
    'match.reviewed': MatchReviewedData;
  }
}
