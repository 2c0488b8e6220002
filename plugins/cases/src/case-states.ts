import { badRequest, conflict } from '@filigrane/plugin-api';

export const CASE_STATES = ['open', 'notice_sent', 'resolved', 'closed'] as const;
export type CaseState = (typeof CASE_STATES)[number];
export const RESOLUTIONS = ['removed', 'licensed_afterwards', 'paid'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/**
 * The moves a user asks for with POST .../transitions/ (docs/api-decisions.md). `notice_sent` is not
 * among them: a case gets there when one of its notices is sent or recorded as sent. A resolved case
 * may be reopened (the copy came back); a closed case is final.
 */
const ALLOWED: Record<CaseState, readonly CaseState[]> = {
  open: ['resolved', 'closed'],
  notice_sent: ['resolved', 'closed'],
  resolved: ['open', 'closed'],
  closed: [],
};

/** Checks a requested move; throws the spec's error body (400 bad input, 409 not from this state). */
export function checkTransition(from: CaseState, to: unknown, resolution: unknown): { to: CaseState; resolution: Resolution | null } {
  if (typeof to !== 'string' || !(CASE_STATES as readonly string[]).includes(to)) {
    throw badRequest('invalid_state', `state is one of ${CASE_STATES.join(', ')}.`);
  }
  const target = to as CaseState;
  if (target === 'resolved') {
    if (typeof resolution !== 'string' || !(RESOLUTIONS as readonly string[]).includes(resolution)) {
      throw badRequest('invalid_resolution', `A resolved case needs a resolution: ${RESOLUTIONS.join(', ')}.`);
    }
  } else if (resolution !== undefined && resolution !== null) {
    throw badRequest('invalid_resolution', 'Only a move to resolved takes a resolution.');
  }
  if (target === 'notice_sent') {
    throw conflict('invalid_transition', 'A case moves to notice_sent when one of its notices is sent (POST .../notices/{id}/send/) or recorded as sent (POST .../notices/{id}/sent/).');
  }
  if (!ALLOWED[from].includes(target)) {
    throw conflict('invalid_transition', from === 'closed' ? 'A closed case cannot change state.' : `A case in state ${from} cannot move to ${target} (allowed: ${ALLOWED[from].join(', ')}).`);
  }
  return { to: target, resolution: target === 'resolved' ? (resolution as Resolution) : null };
}

/** Whether matches may still be added or removed, and notices made: not once resolved or closed. */
export const isActive = (state: CaseState) => state === 'open' || state === 'notice_sent';
