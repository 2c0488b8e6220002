import type { DigestSectionRequest } from '@filigrane/plugin-notifications';
import type { ReviewStore } from './review.service.js';
import { REVIEW_STATES, type ReviewState } from './review-states.js';

const WORDS = {
  en: {
    title: 'Review of your matches',
    states: { new: 'to review (new)', unsure: 'unsure', licensed: 'licensed', infringing: 'infringing', not_a_match: 'not a match', ignored: 'ignored' },
    changed: (n: number) => `Reviewed in this period: ${n} change${n === 1 ? '' : 's'}`,
  },
  fr: {
    title: 'Revue de vos détections',
    states: { new: 'à examiner (nouvelles)', unsure: 'incertaines', licensed: 'sous licence', infringing: 'contrefaisantes', not_a_match: 'non pertinentes', ignored: 'ignorées' },
    changed: (n: number) => `Revues sur la période : ${n} changement${n > 1 ? 's' : ''}`,
  },
} satisfies Record<string, { title: string; states: Record<ReviewState, string>; changed: (n: number) => string }>;

/**
 * The digests' review section: how many of the account's matches are in each state now, and how
 * many changes the period saw (by new state). Null when the account has no match.
 */
export async function reviewDigestSection(reviews: ReviewStore, req: DigestSectionRequest): Promise<string | null> {
  const w = WORDS[req.lang === 'fr' ? 'fr' : 'en'];
  const counts = await Promise.all(REVIEW_STATES.map(async (s) => [s, await reviews.count(req.accountId, { review_state: s })] as const));
  if (counts.every(([, n]) => n === 0)) return null;
  const lines = counts.filter(([, n]) => n > 0).map(([s, n]) => `- ${w.states[s]}: ${n}`);
  const changes = await reviews.changesBetween(req.accountId, req.since, req.until);
  const total = [...changes.values()].reduce((a, b) => a + b, 0);
  if (total > 0) {
    const detail = REVIEW_STATES.filter((s) => changes.get(s)).map((s) => `${w.states[s]} ${changes.get(s)}`).join(', ');
    lines.push(`${w.changed(total)} (${detail})`);
  }
  return `${w.title}\n${lines.join('\n')}`;
}
