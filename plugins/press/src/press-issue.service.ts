import { createHash } from 'node:crypto';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { ApiError, labelError, notFound, TOKENS, validationError, type AppConfig, type BlobStore, type Clock, type ErrorItem, type EventPublisher, type JobQueue } from '@filigrane/core';
import { PressIssue } from './press-issue.entity.js';

export const PRESS_QUEUE = 'press.process-issue';
/** Largest PDF accepted (the body limit of the API is 64 MiB; the inbox and CLI use the same). */
export const MAX_PDF_BYTES = 64 * 1024 * 1024;

export const issueKey = (id: number) => `press/issues/${id}/issue.pdf`;
export const issueImageKey = (id: number, md5: string) => `press/issues/${id}/images/${md5}`;
export const issueUrl = (baseUrl: string, id: number) => `${baseUrl}/api/v3/press/issues/${id}/`;

export interface IngestInput {
  data: Buffer;
  name: unknown;
  date: unknown;
  domain?: unknown;
  origin: 'api' | 'url' | 'cli' | 'inbox';
  ingestedBy: number | null;
  filename: string | null;
  sourceUrl: string | null;
  baseUrl: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DOMAIN = /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** Validates the issue's fields; every problem is reported. */
export function parseIssueFields(name: unknown, date: unknown, domain: unknown): { name: string; date: string; domain: string | null } {
  const errors: ErrorItem[] = [];
  if (typeof name !== 'string' || !name.trim()) errors.push({ field: 'name', code: 'required', details: 'name (the publication) is required.' });
  else if (name.length > 200) errors.push({ field: 'name', code: 'max_length', details: 'At most 200 characters.' });
  else {
    // Shown to every account with a match in the issue: one line, nothing invisible (spaces fold below).
    const bad = labelError('name', name.replace(/[\t\n\r]/g, ' '));
    if (bad) errors.push(bad);
  }
  const validDate = typeof date === 'string' && DATE.test(date) && !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
  if (date === undefined || date === null || date === '') errors.push({ field: 'date', code: 'required', details: 'date (YYYY-MM-DD) is required.' });
  else if (!validDate) errors.push({ field: 'date', code: 'invalid', details: 'date must be a date, YYYY-MM-DD.' });
  let dom: string | null = null;
  if (domain !== undefined && domain !== null && domain !== '') {
    if (typeof domain !== 'string' || !DOMAIN.test(domain)) errors.push({ field: 'domain', code: 'invalid_domain', details: 'domain must be a domain name such as lemonde.fr.' });
    else dom = domain.toLowerCase();
  }
  if (errors.length) throw validationError(errors);
  return { name: (name as string).trim().replace(/\s+/g, ' '), date: date as string, domain: dom };
}

/** 409 naming the issue that already holds these bytes (see docs/api-decisions.md, Press). */
function duplicateIssue(existing: PressIssue, baseUrl: string): ApiError {
  const url = issueUrl(baseUrl, existing.id);
  const details = `This PDF was already ingested as press issue ${existing.id} (${existing.name}, ${existing.date}, ${existing.status}): ${url}`;
  return new ApiError(409, 'duplicate_issue', details, [{ field: 'file', code: 'duplicate_issue', details }], { 'content-location': url });
}

/** Press issues: ingestion (stored, then analysed by a job), status, listing, deletion. */
@injectable()
export class PressIssueService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Config) private readonly config: AppConfig,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
  ) {}

  /** Base URL for issues that do not come through HTTP (command line, inbox). */
  defaultBaseUrl(): string {
    return this.config.publicUrl ?? `http://${this.config.host.includes(':') ? `[${this.config.host}]` : this.config.host}:${this.config.port}`;
  }

  async ingest(input: IngestInput): Promise<PressIssue> {
    const fields = parseIssueFields(input.name, input.date, input.domain);
    const errors: ErrorItem[] = [];
    if (input.data.length === 0) errors.push({ field: 'file', code: 'empty', details: 'The file is empty.' });
    else if (input.data.length > MAX_PDF_BYTES) errors.push({ field: 'file', code: 'too_large', details: `At most ${MAX_PDF_BYTES} bytes.` });
    else if (input.data.subarray(0, 1024).indexOf('%PDF-') < 0) errors.push({ field: 'file', code: 'unsupported_format', details: 'The file is not a PDF.' });
    if (errors.length) throw validationError(errors);
    const sha256 = createHash('sha256').update(input.data).digest('hex');
    // The same bytes are one issue: a second ingest would record every press match again under
    // another issue. Checked and inserted under a lock on the digest, so it holds across processes.
    const issue = await this.db.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`press-issue:${sha256}`]);
      const existing = await m.findOne(PressIssue, { where: { sha256 }, order: { id: 'ASC' } });
      if (existing) throw duplicateIssue(existing, input.baseUrl);
      return m.save(m.create(PressIssue, {
        ...fields,
        origin: input.origin,
        ingestedBy: input.ingestedBy,
        filename: input.filename,
        sourceUrl: input.sourceUrl,
        sizeBytes: String(input.data.length),
        sha256,
        baseUrl: input.baseUrl,
        status: 'pending',
        pagesTotal: null,
        pagesDone: 0,
        error: null,
        started: null,
        finished: null,
      }));
    });
    try {
      await this.blobs.put(issueKey(issue.id), input.data);
      await this.jobs.send(PRESS_QUEUE, { id: issue.id }, { singletonKey: `press-issue-${issue.id}` });
    } catch (err) {
      // The file store (or the queue) failing leaves no issue behind: one left pending would never
      // be analysed, and the same PDF ingested again once the store is back would be its duplicate.
      await this.db.manager.delete(PressIssue, { id: issue.id }).catch(() => undefined);
      await this.blobs.delete(issueKey(issue.id)).catch(() => undefined);
      throw err;
    }
    return issue;
  }

  async get(id: number): Promise<PressIssue> {
    const issue = Number.isSafeInteger(id) && id > 0 ? await this.db.manager.findOne(PressIssue, { where: { id } }) : null;
    if (!issue) throw notFound('No such press issue.');
    return issue;
  }

  async list(offset: number, limit: number): Promise<[PressIssue[], number]> {
    return this.db.manager.findAndCount(PressIssue, { order: { created: 'DESC', id: 'DESC' }, skip: offset, take: limit });
  }

  /** Removes the issue and its files; the matches it gave stay (they belong to the accounts). */
  async delete(id: number): Promise<void> {
    const issue = await this.get(id);
    await this.db.manager.delete(PressIssue, { id: issue.id });
    await this.blobs.deletePrefix(`press/issues/${issue.id}`);
  }

  view(i: PressIssue, baseUrl = i.baseUrl): Record<string, unknown> {
    return {
      id: i.id,
      url: issueUrl(baseUrl, i.id),
      name: i.name,
      date: i.date,
      domain: i.domain,
      origin: i.origin,
      filename: i.filename,
      source_url: i.sourceUrl,
      size: Number(i.sizeBytes),
      sha256: i.sha256,
      status: i.status,
      pages: { done: i.pagesDone, total: i.pagesTotal },
      images_found: i.imagesFound,
      matches_found: i.matchesFound,
      credits_found: i.creditsFound,
      error: i.error,
      created: i.created.toISOString(),
      started: i.started?.toISOString() ?? null,
      finished: i.finished?.toISOString() ?? null,
    };
  }

  now(): Date {
    return this.clock.now();
  }

  publisher(): EventPublisher {
    return this.events;
  }
}
