import { labelError, validationError } from '@filigrane/core';

/** An OAuth application name, checked the same way for REST and GraphQL. */
export function parseApplicationName(body: unknown): string {
  const name = (body as { name?: unknown } | undefined)?.name;
  if (typeof name !== 'string' || name.trim() === '') {
    throw validationError([{ field: 'name', code: 'required', details: 'This field is required.' }]);
  }
  if (name.length > 255) throw validationError([{ field: 'name', code: 'max_length', details: 'Ensure this field has no more than 255 characters.' }]);
  const bad = labelError('name', name);
  if (bad) throw validationError([bad]);
  return name.trim();
}
