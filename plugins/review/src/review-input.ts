import { labelError, validationError, type ErrorItem } from '@filigrane/plugin-api';
import { isReviewState, REVIEW_STATES, type ReviewState } from './review-states.js';

export const MAX_NOTE = 2000;
/** Most ids one request names (a larger set goes by filter). */
export const MAX_IDS = 10_000;
const MATCH_ID = /^\d{1,15}$/;

/** A string without NUL characters (PostgreSQL text refuses them), or an error item. */
export function text(value: unknown, field: string, max: number, errors: ErrorItem[], required = false): string | undefined {
  if (value === undefined || value === null) {
    if (required) errors.push({ field, code: 'required', details: `${field} is required.` });
    return undefined;
  }
  if (typeof value !== 'string') errors.push({ field, code: 'invalid', details: `${field} is a string.` });
  else if (value.includes('\u0000')) errors.push({ field, code: 'invalid', details: `${field} contains a NUL character.` });
  else if (value.length > max) errors.push({ field, code: 'max_length', details: `${field} has at most ${max} characters.` });
  else if (required && value.trim() === '') errors.push({ field, code: 'required', details: `${field} is required.` });
  else return value;
  return undefined;
}

/** A one-line label (a name, a reference): `text` without control or invisible formatting characters. */
export function label(value: unknown, field: string, max: number, errors: ErrorItem[], required = false): string | undefined {
  const s = text(value, field, max, errors, required);
  const bad = s === undefined ? null : labelError(field, s);
  if (bad) errors.push(bad);
  return bad ? undefined : s;
}

export function reviewState(value: unknown, errors: ErrorItem[], field = 'state'): ReviewState | undefined {
  if (isReviewState(value)) return value;
  errors.push({ field, code: value === undefined ? 'required' : 'invalid_choice', details: `${field} is one of: ${REVIEW_STATES.join(', ')}.` });
  return undefined;
}

export function matchIds(value: unknown, errors: ErrorItem[], field = 'ids'): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IDS) {
    errors.push({ field, code: 'invalid', details: `${field} is a list of 1 to ${MAX_IDS} match ids.` });
    return undefined;
  }
  const ids = value.map((v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v));
  const bad = ids.filter((v) => typeof v !== 'string' || !MATCH_ID.test(v));
  if (bad.length) {
    errors.push({ field, code: 'invalid', details: `Not match ids: ${bad.slice(0, 5).map((b) => JSON.stringify(b).slice(0, 40)).join(', ')}.` });
    return undefined;
  }
  return [...new Set(ids as string[])];
}

export const isMatchId = (v: string | undefined): v is string => v !== undefined && MATCH_ID.test(v);

/** Rejects fields a body does not take. */
export function unknownFields(body: Record<string, unknown>, allowed: readonly string[], errors: ErrorItem[]): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) errors.push({ field: k, code: 'unknown_field', details: `Unknown field "${k}".` });
}

export function jsonObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError([{ field: 'non_field_errors', code: 'invalid', details: 'Expected a JSON object.' }]);
  return body as Record<string, unknown>;
}
