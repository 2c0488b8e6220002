import { inject, injectable } from 'inversify';
import { In, type DataSource } from 'typeorm';
import { BlobMissingError, CORE_SETTINGS, isBlobStoreOutage, TOKENS, type BlobStore, type CoreSettings, type EventPublisher, type MatchPipeline, type Sighting, type SightingMatch, type LoggerFactory } from '@filigrane/core';
import { MediaError, PreparedQuery, prepareQuery } from '@filigrane/vision';
import { AccountService } from '@filigrane/plugin-account';
import { DocumentError } from './document-error.js';
import { extractPdfInWorker, type ExtractedImage, type ExtractionLimits } from './pdf-extraction.js';
import { PressIssue } from './press-issue.entity.js';
import { issueImageKey, issueKey } from './press-issue.service.js';
import { TesseractOcr } from './ocr.js';
import { PRESS_SETTINGS, type PressSettings } from './press.settings.js';

/** The notification flags that say an account follows the press (see docs/api-decisions.md). */
export const PRESS_FLAGS = ['notify_pdf', 'notify_pdf_daily', 'notify_pdf_weekly'] as const;

/** Extraction limits from the settings. */
export function limitsFrom(settings: PressSettings, core: CoreSettings): Partial<ExtractionLimits> {
  return { maxPages: settings.maxPages, maxImagePixels: core.maxImagePixels, timeoutMs: settings.timeoutSeconds * 1000 };
}

/** A publication without a known web domain is a site named after it ("Le Monde" -> le-monde). */
export const publicationSlug = (name: string) =>
  name.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'publication';

/**
 * Analyses a press issue page by page: every image is handed to the match pipeline for every
 * account that tracks press, with its page, placement and printed credit line. An image repeated
 * on several pages is identified once per account; its other pages are recorded from that result.
 */
@injectable()
export class PressAnalysisService {
  readonly ocr = new TesseractOcr();

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.MatchPipeline) private readonly pipeline: MatchPipeline,
    @inject(PRESS_SETTINGS.token) private readonly settings: PressSettings,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
    @inject(AccountService) private readonly accounts: AccountService,
    @inject(TOKENS.Loggers) private readonly loggers: LoggerFactory,
  ) {}

  /** Accounts that track press: any of the press notification flags set. */
  async trackingAccounts(): Promise<number[]> {
    return this.accounts.withAnyNotification(PRESS_FLAGS);
  }

  private async update(id: number, values: Partial<PressIssue>): Promise<void> {
    await this.db.manager.update(PressIssue, { id }, values as never);
  }

  /** Job handler. A restarted job (crash, kill -9) starts the issue again: matches are idempotent. */
  async process(id: number): Promise<void> {
    const issue = await this.db.manager.findOne(PressIssue, { where: { id } });
    if (!issue || issue.status === 'complete' || issue.status === 'failed') return;
    await this.update(id, { status: 'running', started: new Date(), pagesDone: 0, imagesFound: 0, matchesFound: 0, creditsFound: 0 });
    const counts = { images: 0, matches: 0, credits: 0, pages: 0, skipped: 0 };
    const perAccount = new Map<number, number>();
    let outcome: Partial<PressIssue>;
    try {
      const data = await this.blobs.get(issueKey(id));
      if (!data) {
        this.loggers.for('press').error(`press issue ${id} failed`, new BlobMissingError(issueKey(id))); // the operators' side of the failure
        throw new DocumentError('file_missing', 'The issue\'s file is no longer stored.');
      }
      const accounts = await this.trackingAccounts();
      // Per account and image: the media found the first time, reused on the other pages.
      const known = new Map<string, SightingMatch[]>();
      const stored = new Set<string>();
      const pages = extractPdfInWorker(data, {
        limits: limitsFrom(this.settings, this.core),
        // Credit lines serve matching only: without a tracking account, scans are not read.
        ocr: this.settings.ocr && accounts.length ? this.ocr : null,
        onStart: (total) => this.update(id, { pagesTotal: total }),
      });
      for await (const page of pages) {
        for (const image of page.images) {
          counts.images++;
          if (image.credit) counts.credits++;
          let matchedHere = false;
          // Decoded and described once for every account (the pipeline reports what cannot be).
          let prepared: PreparedQuery | undefined;
          if (accounts.length && accounts.some((a) => !known.has(`${a}:${image.md5}`))) prepared = await prepareQuery(image.bytes).catch(() => undefined);
          for (const accountId of accounts) {
            const sighting = this.sighting(issue, accountId, page.pageNumber, image);
            sighting.image.prepared = prepared;
            const key = `${accountId}:${image.md5}`;
            const previous = known.get(key);
            let matches: SightingMatch[];
            try {
              matches = await this.pipeline.submit(sighting, { reuse: previous });
            } catch (err) {
              // One picture the pipeline cannot read (too small or flat to fingerprint) never fails the issue.
              if (!(err instanceof MediaError)) throw err;
              matches = [];
              counts.skipped++;
            }
            if (!previous) known.set(key, matches);
            if (matches.length) {
              matchedHere = true;
              counts.matches += matches.filter((m) => m.created).length;
              perAccount.set(accountId, (perAccount.get(accountId) ?? 0) + matches.length);
            }
          }
          // The printed image is kept only when it matched something (the matches link to it).
          if (matchedHere && !stored.has(image.md5)) {
            await this.blobs.put(issueImageKey(id, image.md5), image.bytes);
            stored.add(image.md5);
          }
        }
        counts.pages++;
        const progress = await this.db.manager.update(PressIssue, { id }, { pagesDone: counts.pages, imagesFound: counts.images, matchesFound: counts.matches, creditsFound: counts.credits } as never);
        // Deleted meanwhile (DELETE removed its files): stop, and remove the images stored since.
        if (progress.affected === 0) {
          await this.blobs.deletePrefix(`press/issues/${id}`);
          return;
        }
      }
      outcome = { status: 'complete', finished: new Date(), error: null };
    } catch (err) {
      // The store out of reach passes: the job is retried later and starts the issue again.
      if (isBlobStoreOutage(err)) throw err;
      // An unexpected failure's own message names internals (pdf.js, the database, file keys): logged, not shown.
      if (!(err instanceof DocumentError)) this.loggers.for('press').error(`press issue ${id} failed at page ${counts.pages + 1}`, err);
      const error = err instanceof DocumentError
        ? { code: err.code, details: err.message }
        : { code: 'analysis_error', details: `The analysis failed at page ${counts.pages + 1} for a reason on the service's side (logged for its operators); the matches found before stay.` };
      outcome = { status: 'failed', finished: new Date(), error };
    }
    await this.finish(id, outcome, perAccount);
  }

  /**
   * An issue whose analyses all stopped without an outcome (the worker killed or crashed each time:
   * a crafted PDF that exhausts memory): failed, unless it ended meanwhile. Called by the job runner
   * once the retries are used up; the matches stored before stay.
   */
  async abandon(id: number, storeDown = false): Promise<void> {
    const issue = await this.db.manager.findOne(PressIssue, { where: { id } });
    if (!issue || (issue.status !== 'pending' && issue.status !== 'running')) return;
    const error = storeDown
      ? { code: 'blob_store_unavailable', details: `The file store could not be reached for several minutes, at page ${issue.pagesDone + 1} (the operators have been told); the matches found before stay.` }
      : {
          code: 'analysis_error',
          details: `The analysis was tried several times and stopped each time at page ${issue.pagesDone + 1} for a reason on the service's side (logged for its operators); the matches found before stay.`,
        };
    await this.finish(id, { status: 'failed', finished: new Date(), error }, new Map(), ['pending', 'running']);
  }

  /**
   * The issue's outcome and one `press.issue.processed` per account concerned commit together (the
   * outbox); `from`: only an issue in one of these states changes (nothing is sent otherwise).
   */
  private async finish(id: number, outcome: Partial<PressIssue>, perAccount: Map<number, number>, from?: string[]): Promise<void> {
    const changed = await this.db.transaction(async (m) => {
      const updated = await m.update(PressIssue, from ? { id, status: In(from) } : { id }, outcome as never);
      if (from && !updated.affected) return false;
      const done = await m.findOneOrFail(PressIssue, { where: { id } });
      const data = { id: done.id, name: done.name, date: done.date, status: done.status, pages: done.pagesTotal, error: done.error };
      const notify = new Set<number>([...perAccount.keys(), ...(done.ingestedBy !== null ? [done.ingestedBy] : [])]);
      for (const accountId of notify) {
        await this.events.enqueue({ type: 'press.issue.processed', accountId, data: { ...data, matches: perAccount.get(accountId) ?? 0 } }, m, { key: `press:${id}` });
      }
      return true;
    });
    if (changed) await this.events.flush();
  }

  sighting(issue: PressIssue, accountId: number, pageNumber: number, image: ExtractedImage): Sighting {
    const base = `${issue.baseUrl}/api/v3/press/issues/${issue.id}`;
    return {
      accountId,
      source: 'press',
      kind: 'press',
      image: { bytes: image.bytes },
      imageUrl: `${base}/images/${image.md5}`,
      page: {
        url: `${base}/pages/${pageNumber}/`,
        type: 'press',
        headline: `${issue.name}, ${issue.date}, page ${pageNumber}`,
        datePublished: new Date(`${issue.date}T00:00:00Z`),
      },
      site: { name: issue.name, domain: issue.domain ?? publicationSlug(issue.name) },
      press: { issueName: issue.name, issueDate: issue.date, pageNumber },
      credit: image.credit ?? undefined,
    };
  }
}
