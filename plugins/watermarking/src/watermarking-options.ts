import { validationError, type ErrorItem } from '@filigrane/core';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from './watermarking.service.js';

export interface WatermarkingOptions {
  sync: boolean;
  timeoutSeconds: number;
}

/** `sync` and `timeout` as the JSON body, the query string (binary bodies) or GraphQL give them. */
export function parseOptions(sync: unknown, timeout: unknown): WatermarkingOptions {
  const errors: ErrorItem[] = [];
  if (sync !== undefined && sync !== null && typeof sync !== 'boolean') errors.push({ field: 'sync', code: 'invalid', details: 'sync must be true or false.' });
  if (timeout !== undefined && timeout !== null && !(Number.isInteger(timeout) && (timeout as number) >= 1 && (timeout as number) <= MAX_TIMEOUT_SECONDS)) {
    errors.push({ field: 'timeout', code: 'invalid', details: `timeout must be a whole number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}.` });
  }
  if (errors.length) throw validationError(errors);
  return { sync: (sync as boolean | undefined | null) ?? true, timeoutSeconds: (timeout as number | undefined | null) ?? DEFAULT_TIMEOUT_SECONDS };
}
