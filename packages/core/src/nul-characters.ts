import { ApiError } from './errors.js';

/**
 * Characters no request may carry in a string, because PostgreSQL cannot store them: U+0000 in
 * text (a 500 once it reached a query), and an unpaired UTF-16 surrogate (JSON's `"\ud800"`),
 * which a jsonb column refuses (a 500) and a text column silently stores as U+FFFD (the data
 * read back is not what was sent). The adapters (REST bodies and query strings, GraphQL
 * arguments) refuse both on arrival with this check.
 */
const NUL = '\u0000';
/** In a `u` regex a surrogate pair is one code point, so only an unpaired surrogate is category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** What is wrong with one string, or null: `nul` or `surrogate` (an unpaired UTF-16 surrogate). */
function problemOf(s: string): 'nul' | 'surrogate' | null {
  if (s.includes(NUL)) return 'nul';
  if (LONE_SURROGATE.test(s)) return 'surrogate';
  return null;
}

/** The dotted path of the first string or key that cannot be stored (any depth), with the reason, or null. */
export function findUnstorableText(value: unknown, prefix = ''): { field: string; problem: 'nul' | 'surrogate' } | null {
  // Iterative: a hostile body may nest thousands of levels.
  const stack: [unknown, string][] = [[value, prefix]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = problemOf(v);
      if (problem) return { field: path, problem };
      continue;
    }
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array || v instanceof Date) continue;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      const p = path ? `${path}.${k}` : k;
      const problem = problemOf(k);
      if (problem) return { field: p, problem };
      stack.push([x, p]);
    }
  }
  return null;
}

/** The dotted path of the first string or key holding U+0000 or an unpaired surrogate, or null. */
export function findNul(value: unknown, prefix = ''): string | null {
  return findUnstorableText(value, prefix)?.field ?? null;
}

/** Shows a field name (it may be a key the client sent) without the characters it was refused for. */
function printable(field: string): string {
  return field.replaceAll(NUL, '\\u0000').replace(/\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** 400 `invalid_character` naming the field (the character shown escaped when it is in a key). */
export function nulCharacterError(field: string, problem: 'nul' | 'surrogate' = 'nul'): ApiError {
  const name = printable(field) || 'body';
  const details =
    problem === 'nul'
      ? `"${name}" contains the NUL character (U+0000), which is not allowed.`
      : `"${name}" contains an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape), which is not valid Unicode text.`;
  return new ApiError(400, 'invalid_character', details, [{ field: name, code: 'invalid_character', details }]);
}

/** Throws 400 `invalid_character` for the first NUL or unpaired surrogate in `value` (fields named from `prefix`). */
export function rejectUnstorableText(value: unknown, prefix = ''): void {
  const found = findUnstorableText(value, prefix);
  if (found !== null) throw nulCharacterError(found.field, found.problem);
}

/** The former name of rejectUnstorableText (NUL was its first case). */
export const rejectNul = rejectUnstorableText;
