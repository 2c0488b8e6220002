import { createExtensionPoint } from './extension-point.js';

/**
 * Called when an account is deleted, before its row goes: a plugin deletes what it stored for the
 * account (rows, blobs, queued jobs). Hooks run one after the other in plugin load order; one that
 * throws stops the deletion, so make them idempotent (a retried deletion runs them again).
 */
export type AccountDeletedHook = (accountId: number) => Promise<void>;

/** Declared by the platform, so any plugin may contribute a hook. */
export const ACCOUNT_DELETED_HOOKS = createExtensionPoint<AccountDeletedHook>('core.account-deleted');

/** Runs the hooks (`TOKENS.AccountLifecycle`): the account plugin calls it when it deletes an account. */
export interface AccountLifecycle {
  accountDeleted(accountId: number): Promise<void>;
}

/** Limits an operator may set on a new account (null: unlimited). */
export interface AccountQuotas {
  imageQuota?: number | null;
  diskQuota?: number | null;
  /** `<counter>_limit` values for the quotas object. */
  limits?: Record<string, number | null>;
}

/**
 * Makes an account as an operator would: identity, API key, profile, permissions
 * (`TOKENS.AccountProvisioner`, bound by the account plugin). For the CLI and the test kit, which
 * must not depend on the account plugin's classes.
 */
export interface AccountProvisioner {
  create(
    input: { username: string; email: string; fullName: string; permissions?: string[] },
    quotas?: AccountQuotas,
  ): Promise<{ id: number; apiKey: string }>;
}
