import { forbidden, type Principal } from '@filigrane/core';

/** Operators (and publishers' integrations) ingest and manage press issues with this permission. */
export const PRESS_INGEST = 'press:ingest';

export function requireIngest(p: Principal): void {
  if (!p.permissions.includes(PRESS_INGEST)) throw forbidden(`Press issues need the ${PRESS_INGEST} permission.`);
}
