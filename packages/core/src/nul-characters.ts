import { ApiError } from './errors.js';

/**
 * PostgreSQL cannot store U+0000 in text: a NUL that reached a query would be a 500. The adapters
 * (REST bodies and query strings, GraphQL arguments) refuse it on arrival with this check.
 */
const NUL = '\u0000';
/**
 * A UTF-16 surrogate without its pair (JSON's `"\ud800"`): not Unicode text. PostgreSQL refuses it in
 * jsonb (a 500) and the driver turns it into U+FFFD in text (the stored value silently changed).
 */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

export type BadCharacter = 'nul' | 'surrogate';

const badIn = (s: string): BadCharacter | null => (s.includes(NUL) ? 'nul' : UNPAIRED_SURROGATE.test(s) ? 'surrogate' : null);

/** The dotted path of the first string or key holding U+0000 in a parsed value (any depth), or null. */
export function findNul(value: unknown, prefix = ''): string | null {
  const found = findBadCharacter(value, prefix, (s) => (s.includes(NUL) ? 'nul' : null));
  return found && found.field;
}

/** The first string or key (dotted path) holding U+0000 or an unpaired surrogate, and which, or null. */
export function findBadCharacter(value: unknown, prefix = '', check: (s: string) => BadCharacter | null = badIn): { field: string; character: BadCharacter } | null {
  // Iterative: a hostile body may nest thousands of levels.
  const stack: [unknown, string][] = [[value, prefix]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const character = check(v);
      if (character) return { field: path, character };
      continue;
    }
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array || v instanceof Date) continue;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      const p = path ? `${path}.${k}` : k;
      const character = check(k);
      if (character) return { field: p, character };
      stack.push([x, p]);
    }
  }
  return null;
}

/** 400 `invalid_character` naming the field (the NUL shown escaped when it is in a key). */
export function nulCharacterError(field: string): ApiError {
  const name = field.replaceAll(NUL, '\\u0000') || 'body';
  const details = `"${name}" contains the NUL character (U+0000), which is not allowed.`;
  return new ApiError(400, 'invalid_character', details, [{ field: name, code: 'invalid_character', details }]);
}

/** 400 `invalid_character` naming the field holding an unpaired UTF-16 surrogate. */
export function surrogateCharacterError(field: string): ApiError {
  const name = field.replace(/\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`).replaceAll(NUL, '\\u0000') || 'body';
  const details = `"${name}" contains an unpaired UTF-16 surrogate (\\uD800-\\uDFFF without its pair), which is not text.`;
  return new ApiError(400, 'invalid_character', details, [{ field: name, code: 'invalid_character', details }]);
}

/** Throws for the first NUL or unpaired surrogate in `value` (fields named from `prefix`). */
export function rejectNul(value: unknown, prefix = ''): void {
  const found = findBadCharacter(value, prefix);
  if (found) throw found.character === 'nul' ? nulCharacterError(found.field) : surrogateCharacterError(found.field);
}
