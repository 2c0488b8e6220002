import type { Principal, QueryValue } from '@filigrane/plugin-api';
import type { ReviewState } from './review-states.js';

/** The review plugin's service, for other plugins (cases, the console): `@inject(REVIEW_SERVICE)`. */
export const REVIEW_SERVICE = Symbol.for('filigrane.review.service');

/** Where a match stands. A match nobody reviewed is `new`, changed when it was first seen. */
export interface MatchReview {
  state: ReviewState;
  /** The licensee (its id) that made it `licensed`, or the one a person named; null otherwise. */
  licenseId: string | null;
  changedAt: Date;
  note: string | null;
  /** Set by a licensee rule (re-applied when the licensee list changes), not by a person. */
  automatic: boolean;
}

/** Who made a change: a person with the account's key or session, an OAuth application, or a licensee rule. */
export interface ReviewActor {
  type: 'account' | 'application' | 'licensee';
  accountId: number | null;
  username: string | null;
  applicationId: number | null;
}

/** One entry of a match's audit trail. */
export interface ReviewChange {
  id: string;
  matchId: string;
  state: ReviewState;
  previousState: ReviewState;
  licenseId: string | null;
  note: string | null;
  actor: ReviewActor;
  changedAt: Date;
}

export interface ReviewChangeResult {
  /** Matches the request named or selected. */
  matched: number;
  /** Those whose state changed (or that got a note); the others already were in the state. */
  changed: number;
}

export interface SetStateOptions {
  /** For `licensed`: the licensee it is licensed under (one of the account's). */
  licenseId?: string;
}

export interface ReviewService {
  /**
   * The review of each of the account's matches among `matchIds` (v4 ids, as strings); ids that are
   * not the account's matches are absent from the map.
   */
  states(accountId: number, matchIds: string[]): Promise<Map<string, MatchReview>>;
  /**
   * Sets the state of the principal's matches (all of them or none: an id that is not one is a
   * 404), records who, when and the note, and publishes `match.reviewed` for each change.
   */
  setState(principal: Principal, matchIds: string[], state: ReviewState, note?: string, options?: SetStateOptions): Promise<ReviewChangeResult>;
  /** The same for every match a v4 match-list filter query selects (`{ 'site.domain': 'example.com' }`). */
  setStateByFilter(principal: Principal, query: Record<string, QueryValue>, state: ReviewState, note?: string): Promise<ReviewChangeResult>;
  /** A match's audit trail, oldest first; null when it is not one of the account's matches. */
  history(accountId: number, matchId: string): Promise<ReviewChange[] | null>;
}

/** What `match.reviewed` carries (the webhook body's `data`), one event per match changed. */
export interface MatchReviewedData {
  id: string;
  state: ReviewState;
  previous_state: ReviewState;
  license_id: string | null;
  note: string | null;
  automatic: boolean;
  actor: { type: ReviewActor['type']; account_id: number | null; application_id: number | null };
  changed_at: string;
}
