import { badRequest, inject, injectable, TOKENS, type Clock, type DataSource, type Logger, type LoggerFactory } from '@filigrane/plugin-api';
import { TakedownRequest } from './takedown.entity.js';
import { TAKEDOWN_SETTINGS, type TakedownSettings } from './takedown.settings.js';

@injectable()
export class TakedownService {
  private readonly log: Logger;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TAKEDOWN_SETTINGS.token) private readonly settings: TakedownSettings,
    @inject(TOKENS.Loggers) loggers: LoggerFactory,
  ) {
    this.log = loggers.for('takedown');
  }

  /** Opens a request for a page (once per page: opening it again returns the same one). */
  async open(accountId: number, pageUrl: unknown, matchId: string | null = null): Promise<TakedownRequest> {
    if (typeof pageUrl !== 'string' || !/^https?:\/\/\S+$/.test(pageUrl) || pageUrl.length > 2000) throw badRequest('invalid', 'page_url must be an http(s) URL.');
    const repo = this.db.getRepository(TakedownRequest);
    await repo.createQueryBuilder().insert().values({ accountId, pageUrl, matchId, openedAt: this.clock.now() }).orIgnore().execute();
    return repo.findOneByOrFail({ accountId, pageUrl });
  }

  list(accountId: number): Promise<TakedownRequest[]> {
    return this.db.getRepository(TakedownRequest).find({ where: { accountId }, order: { id: 'ASC' } });
  }

  /** The scheduled job: open requests older than TAKEDOWN_DAYS become overdue. */
  async flagOverdue(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.settings.days * 86_400_000);
    const result = await this.db.query(`UPDATE takedown_requests SET status = 'overdue' WHERE status = 'open' AND opened_at <= $1`, [cutoff]);
    const flagged = Number((result as [unknown, number])[1] ?? 0);
    if (flagged > 0) this.log.info(`${flagged} takedown request(s) overdue`);
    return flagged;
  }

  async forgetAccount(accountId: number): Promise<void> {
    await this.db.getRepository(TakedownRequest).delete({ accountId });
  }
}
