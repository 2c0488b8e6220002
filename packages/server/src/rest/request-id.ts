import { randomUUID } from 'node:crypto';

const WELL_FORMED = /^[A-Za-z0-9._:\-]{8,128}$/;

/** Echo a caller's X-Request-Id when it is well-formed, so logs can be joined; else make one. */
export function requestIdFor(incoming: string | string[] | undefined): string {
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  return value && WELL_FORMED.test(value) ? value : randomUUID();
}
