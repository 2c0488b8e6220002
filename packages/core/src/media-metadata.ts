import { validationError, type ErrorItem } from './errors.js';

export type MetadataValue = string | boolean;
export type Metadata = Record<string, MetadataValue>;

const MAX_KEYS = 200;

/**
 * Validates a Metadata object: keys start with `user.`, values are strings of at most 255
 * characters, booleans or null. Returns the values to set and the keys to delete (nulls).
 */
export function parseMetadata(input: unknown, field = 'metadata'): { set: Metadata; remove: string[] } {
  if (input === undefined || input === null) return { set: {}, remove: [] };
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw validationError([{ field, code: 'invalid', details: 'Metadata must be an object of key/value pairs.' }]);
  }
  const errors: ErrorItem[] = [];
  const set: Metadata = {};
  const remove: string[] = [];
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_KEYS) errors.push({ field, code: 'too_many_keys', details: `At most ${MAX_KEYS} keys.` });
  for (const [key, value] of entries) {
    const f = `${field}.${key}`;
    if (!/^user\.[^\s]{1,120}$/.test(key)) {
      errors.push({ field: f, code: 'invalid_key', details: `Metadata keys must start with "user." (got "${key}").` });
    } else if (value === null) remove.push(key);
    else if (typeof value === 'boolean') set[key] = value;
    else if (typeof value === 'string') {
      if ([...value].length > 255) errors.push({ field: f, code: 'max_length', details: 'Metadata strings are limited to 255 characters.' });
      else set[key] = value;
    } else errors.push({ field: f, code: 'invalid_value', details: 'Metadata values are strings, booleans or null.' });
  }
  if (errors.length) throw validationError(errors);
  return { set, remove };
}
