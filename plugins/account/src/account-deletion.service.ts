import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { badRequest, forbidden, notFound, returnedRows, TOKENS, type AccountLifecycle, type Clock, type JobQueue, type LoggerFactory, type Principal } from '@filigrane/core';
import { IdentityService, requireTokenScheme } from '@filigrane/plugin-auth';
import { ACCOUNT_SETTINGS, type AccountSettings } from './account.settings.js';

export const DELETE_QUEUE = 'account.delete';
export const DELETION_SWEEP_QUEUE = 'account.deletion-sweep';
/** Every 5 minutes: a deletion whose job was lost (a crash between the request and the send) is queued again. */
export const DELETION_SWEEP_SCHEDULE = '*/5 * * * *';
/** A deletion job that failed (a hook threw, the process died) runs again: the hooks are idempotent. */
const RETRY = { retryLimit: 20, retryDelaySeconds: 15 };

export interface DeletionRequest {
  accountId: number;
  username: string;
  requested: Date;
}

/**
 * Account deletion in two steps that survive a crash anywhere. `request` marks the account and
 * revokes its credentials in one transaction (it stops working at once), then queues the job.
 * `run` (the job) calls every plugin's account-deleted hook, then deletes the identity, whose rows
 * cascade; a hook that fails, or a process that dies, leaves the mark, and the job (retried, or
 * queued again by the sweep) runs the idempotent hooks again.
 */
@injectable()
export class AccountDeletionService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.AccountLifecycle) private readonly lifecycle: AccountLifecycle,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Loggers) private readonly loggers: LoggerFactory,
    @inject(IdentityService) private readonly identities: IdentityService,
    @inject(ACCOUNT_SETTINGS.token) private readonly settings: AccountSettings,
  ) {}

  /**
   * An account deleting itself (REST and GraphQL): only with its API key (a bearer token is a delegated
   * credential), only when ACCOUNT_SELF_DELETE allows it, and only naming itself as confirmation.
   */
  async requestSelf(principal: Principal, confirmation: unknown): Promise<DeletionRequest> {
    requireTokenScheme(principal, 'An account can only be deleted');
    if (!this.settings.selfDelete) throw forbidden('This service does not let accounts delete themselves: ask its operator.');
    if (confirmation !== principal.username) {
      throw badRequest('confirmation_mismatch', `To delete this account and everything it stored, send its username ("username": "${principal.username}").`);
    }
    const request = await this.request(principal.accountId);
    if (!request) throw notFound('No such account.');
    return request;
  }

  /** Marks the account for deletion (idempotent: the first request's time stays) and queues the job; null when there is no such account. */
  async request(accountId: number, options: { startAfterSeconds?: number } = {}): Promise<DeletionRequest | null> {
    const marked = await this.db.transaction(async (m) => {
      if (!(await this.identities.revokeCredentials(accountId, m))) return null;
      const rows = returnedRows<{ deletion_requested: Date }>(
        await m.query(`UPDATE account_profiles SET deletion_requested = COALESCE(deletion_requested, $2) WHERE account_id = $1 RETURNING deletion_requested`, [accountId, this.clock.now()]),
      );
      return rows[0] ?? null;
    });
    if (!marked) return null;
    const account = await this.identities.findById(accountId);
    await this.jobs.send(DELETE_QUEUE, { accountId }, { singletonKey: String(accountId), ...RETRY, startAfterSeconds: options.startAfterSeconds });
    this.loggers.for('account').info(`account ${accountId} (${account?.username ?? '?'}) marked for deletion`);
    return { accountId, username: account?.username ?? '', requested: marked.deletion_requested };
  }

  /**
   * Deletes a marked account: hooks (in plugin load order), then the identity. Idempotent: an account
   * already gone is done; one that is not marked is never deleted (the job alone cannot delete anyone).
   */
  async run(accountId: number): Promise<'deleted' | 'gone' | 'not-marked'> {
    const rows: { deletion_requested: Date | null }[] = await this.db.query('SELECT deletion_requested FROM account_profiles WHERE account_id = $1', [accountId]);
    if (rows.length === 0) return (await this.identities.findById(accountId)) ? 'not-marked' : 'gone';
    if (!rows[0]!.deletion_requested) return 'not-marked';
    await this.lifecycle.accountDeleted(accountId);
    await this.identities.remove(accountId);
    this.loggers.for('account').info(`account ${accountId} deleted`);
    return 'deleted';
  }

  /** Queues the job of every marked account again (the singleton key drops those already queued). */
  async sweep(): Promise<number> {
    const rows: { account_id: number }[] = await this.db.query('SELECT account_id FROM account_profiles WHERE deletion_requested IS NOT NULL ORDER BY account_id');
    for (const r of rows) await this.jobs.send(DELETE_QUEUE, { accountId: r.account_id }, { singletonKey: String(r.account_id), ...RETRY });
    return rows.length;
  }
}
