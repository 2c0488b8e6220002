import { ApiError } from './errors.js';

/**
 * PostgreSQL cannot store U+0000 in text: a NUL that reached a query would be a 500. The adapters
 * (REST bodies and query strings, GraphQL arguments) refuse it on arrival with this check.
 */
const NUL = '\u0000';

/** The dotted path of the first string or key holding U+0000 in a parsed value (any depth), or null. */
export function findNul(value: unknown, prefix = ''): string | null {
  // Iterative: a hostile body may nest thousands of levels.
  const stack: [unknown, string][] = [[value, prefix]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes(NUL)) return path;
      continue;
    }
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array || v instanceof Date) continue;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      const p = path ? `${path}.${k}` : k;
      if (k.includes(NUL)) return p;
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

/** Throws nulCharacterError for the first NUL in `value` (fields named from `prefix`). */
export function rejectNul(value: unknown, prefix = ''): void {
  const field = findNul(value, prefix);
  if (field !== null) throw nulCharacterError(field);
}
