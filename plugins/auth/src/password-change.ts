import { forbidden, validationError, type Principal } from '@filigrane/core';
import type { CredentialThrottle } from './credential-throttle.service.js';
import { checkPassword, type PasswordService } from './password.service.js';

/**
 * An account changing its own password (REST PUT /api/v4/account/password/ and GraphQL
 * changePassword): with the API key or a browser session, never an OAuth bearer token or a signed
 * URL. The current password is required with a browser session once one is set, and checked
 * whenever it is given; guesses are throttled per session and per account. Every other browser
 * session of the account ends. `fields` names the inputs as the caller's error body spells them.
 */
export async function changeOwnPassword(
  passwords: PasswordService,
  throttle: CredentialThrottle,
  principal: Principal,
  input: { next: unknown; current: unknown },
  fields: { next: string; current: string },
): Promise<void> {
  if (principal.scheme !== 'token' && principal.scheme !== 'session') {
    throw forbidden('A password can be set with the API key or in the console, not with an OAuth bearer token or a signed URL.');
  }
  const next = checkPassword(input.next, fields.next);
  if (input.current !== undefined && input.current !== null && typeof input.current !== 'string') {
    throw validationError([{ field: fields.current, code: 'invalid', details: 'The current password is a string.' }]);
  }
  const current = (input.current as string | null | undefined) ?? null;
  const required = principal.scheme === 'session' && (await passwords.has(principal.accountId));
  if (required || current !== null) {
    const right = await throttle.guard({ address: principal.sessionId !== undefined ? `session:${principal.sessionId}` : `account:${principal.accountId}`, client: `password:${principal.accountId}` }, async () =>
      (await passwords.matches(principal.accountId, current ?? '')) ? true : null,
    );
    if (!right) throw validationError([{ field: fields.current, code: 'invalid', details: 'The current password is wrong; type it again.' }]);
  }
  await passwords.set(principal.accountId, next, { keepSession: principal.sessionId });
}
