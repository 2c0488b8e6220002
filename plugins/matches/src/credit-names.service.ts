import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { creditNames, TOKENS, type MediaReader } from '@filigrane/core';

/**
 * Whether a credit line names an account. An account is named by its full name, its username, or
 * the credit of any media it registered (`user.credit`): a photographer's or agency's own credit
 * printed or embedded with a copy is evidence whatever the pixels say.
 */
@injectable()
export class CreditNamesService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.MediaReader) private readonly media: MediaReader,
  ) {}

  async namesOf(accountId: number): Promise<string[]> {
    const rows: { name: string }[] = await this.db.query(
      `SELECT full_name AS name FROM account_directory WHERE id = $1 AND full_name <> ''
       UNION SELECT username FROM account_directory WHERE id = $1`,
      [accountId],
    );
    const names = new Set([...rows.map((r) => r.name), ...(await this.media.credits(accountId))]);
    // Longest first, so the most specific name is the one reported.
    return [...names].sort((a, b) => b.length - a.length);
  }

  /** The account's name that `credit` names, or null. */
  async named(accountId: number, credit: string): Promise<string | null> {
    return creditNames(credit, await this.namesOf(accountId));
  }
}
