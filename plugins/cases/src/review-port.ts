// TEMPORARY (until 21-review's public module lands on main): the review plugin's interface as
// /work/notes/GUIDE.md defines it. Replaced by `import { REVIEW_SERVICE, type ReviewService } from
// '@filigrane/plugin-review'` once it exists.
import type { Principal } from '@filigrane/plugin-api';

export type ReviewState = 'new' | 'unsure' | 'licensed' | 'infringing' | 'not_a_match' | 'ignored';
export const REVIEW_SERVICE = Symbol.for('filigrane.review.service');

export interface ReviewService {
  states(accountId: number, matchIds: string[]): Promise<Map<string, { state: ReviewState; licenseId: string | null; changedAt: Date }>>;
  setState(principal: Principal, matchIds: string[], state: ReviewState, note?: string): Promise<unknown>;
}
