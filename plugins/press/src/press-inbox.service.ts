import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject, injectable } from 'inversify';
import { ApiError } from '@filigrane/core';
import { PRESS_SETTINGS, type PressSettings } from './press.settings.js';
import { PressIssueService } from './press-issue.service.js';

/** "Le Monde 2026-11-20.pdf", "le-monde_2026-11-20.pdf": the publication, then the date. */
const NAMED = /^(.+?)[\s_-]+(\d{4}-\d{2}-\d{2})\.pdf$/i;

/**
 * The watched inbox (PRESS_INBOX_DIR): PDFs dropped there become press issues. A file is
 * claimed by renaming it into `.processing/` (atomic: one worker process takes it), then moved to
 * `.done/` or `.rejected/` (with the reason in the issue or the log).
 */
@injectable()
export class PressInboxService {
  constructor(
    @inject(PressIssueService) private readonly issues: PressIssueService,
    @inject(PRESS_SETTINGS.token) private readonly settings: PressSettings,
  ) {}

  get folder(): string | null {
    return this.settings.inboxDir || null;
  }

  /** Ingests every PDF waiting in the inbox; returns the ids of the issues created. */
  async scan(log: (m: string) => void = () => undefined): Promise<number[]> {
    const dir = this.folder;
    if (!dir) return [];
    for (const sub of ['.processing', '.done', '.rejected']) mkdirSync(join(dir, sub), { recursive: true });
    const ids: number[] = [];
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith('.') || !entry.toLowerCase().endsWith('.pdf')) continue;
      const from = join(dir, entry);
      if (!statSync(from).isFile()) continue;
      const claimed = join(dir, '.processing', entry);
      try {
        renameSync(from, claimed);
      } catch {
        continue; // another process took it
      }
      const m = NAMED.exec(entry);
      const name = m ? m[1]!.replace(/[_]+/g, ' ').trim() : entry.replace(/\.pdf$/i, '');
      const date = m ? m[2]! : statSync(claimed).mtime.toISOString().slice(0, 10);
      try {
        const issue = await this.issues.ingest({
          data: await readFile(claimed), name, date, origin: 'inbox', ingestedBy: null, filename: entry, sourceUrl: null, baseUrl: this.issues.defaultBaseUrl(),
        });
        renameSync(claimed, join(dir, '.done', `${issue.id}-${entry}`));
        ids.push(issue.id);
      } catch (err) {
        renameSync(claimed, join(dir, '.rejected', entry));
        log(`press inbox: ${entry} rejected: ${err instanceof ApiError ? JSON.stringify(err.details) : (err as Error).message}`);
      }
    }
    return ids;
  }
}
