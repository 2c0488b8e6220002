/** A LIKE pattern matching every path strictly below `path` (its `%`, `_` and `\` escaped). */
export function likeBelow(path: string): string {
  return `${path.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}

/** A LIKE pattern matching every string that starts with `prefix` (an index with text_pattern_ops can serve it). */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** TypeORM answers UPDATE and DELETE ... RETURNING with [rows, count], INSERT and SELECT with rows. */
export function returnedRows<T = Record<string, unknown>>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
