/** `date_created` -> dateCreated, `_id` -> id, `_version` -> version. */
export const camelCase = (key: string) => key.replace(/^_+/, '').replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * A REST view with camelCase keys at every depth, for the GraphQL object types declared over it:
 * the REST view stays the one place that decides what an object holds. The values of `keep` keys
 * (user metadata, whose keys are the user's) are left as they are.
 */
export function camelCaseKeys<T = Record<string, unknown>>(value: unknown, keep: readonly string[] = ['user_metadata', 'metadata']): T {
  if (Array.isArray(value)) return value.map((v) => camelCaseKeys(v, keep)) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[camelCase(k)] = keep.includes(k) ? v : camelCaseKeys(v, keep);
  return out as T;
}
