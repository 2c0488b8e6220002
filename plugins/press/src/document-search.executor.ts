import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { ApiError, assertWithinHome, fieldBoolean, searchPathOf, CORE_SETTINGS, isUploadedFile, requireBlob, TOKENS, validationError, type BlobStore, type CoreSettings, type ErrorItem, codecApiError, imageView, type MediaRecord } from '@filigrane/core';
import { IdentificationService, searchNameOf, type SearchExecutor, type SearchScope } from '@filigrane/plugin-search';
import { prepareQuery } from '@filigrane/vision';
import { DocumentError } from './document-error.js';
import { extractPdfInWorker } from './pdf-extraction.js';
import { limitsFrom } from './press-analysis.service.js';
import { MAX_PDF_BYTES } from './press-issue.service.js';
import { PRESS_SETTINGS, type PressSettings } from './press.settings.js';

export interface DocumentQuery {
  /** BlobStore key of the PDF until the search ran. */
  blob: string;
  name: string | null;
  search_path: string;
  filter_marked: boolean | null;
  sync: false;
}

const FIELDS = ['file', 'name', 'sync', 'search_path', 'filter_marked'];
const isPdf = (b: Buffer) => b.subarray(0, 1024).indexOf('%PDF-') >= 0;

/**
 * Search by document: a PDF given as `file` (multipart, URL or data URI) is analysed as a job;
 * the result lists each registered media of the caller found in it, with its page numbers and
 * whether any of its copies carries the watermark.
 */
@injectable()
export class DocumentSearchExecutor implements SearchExecutor<DocumentQuery> {
  readonly kind = 'document';
  readonly priority = 10;

  constructor(
    @inject(IdentificationService) private readonly identification: IdentificationService,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(PRESS_SETTINGS.token) private readonly settings: PressSettings,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
  ) {}

  accepts(body: Record<string, unknown>): boolean {
    const file = body.file;
    return isUploadedFile(file) && (isPdf(file.data) || file.contentType === 'application/pdf');
  }

  async parse(body: Record<string, unknown>, scope: SearchScope): Promise<{ query: DocumentQuery; sync: boolean; name: string | null }> {
    const errors: ErrorItem[] = [];
    for (const k of Object.keys(body)) {
      if (['mode', 'categories', 'transforms'].includes(k)) errors.push({ field: k, code: 'not_for_documents', details: `${k} applies to image searches only.` });
      else if (!FIELDS.includes(k)) errors.push({ field: k, code: 'unknown_field', details: `Unknown search parameter "${k}".` });
    }
    const file = body.file as { data: Buffer; filename: string | null; contentType: string | null };
    if (file.data.length > MAX_PDF_BYTES) errors.push({ field: 'file', code: 'too_large', details: `At most ${MAX_PDF_BYTES} bytes.` });
    else if (!isPdf(file.data)) errors.push({ field: 'file', code: 'unsupported_format', details: 'The file is not a PDF.' });
    const sync = body.sync === undefined ? false : fieldBoolean(body.sync);
    if (sync === undefined) errors.push({ field: 'sync', code: 'invalid', details: 'sync must be a boolean.' });
    else if (sync) errors.push({ field: 'sync', code: 'sync_not_allowed', details: 'Synchronous searches are for images only: search documents with sync=false and poll the search.' });
    const filterMarked = body.filter_marked === undefined || body.filter_marked === null ? null : fieldBoolean(body.filter_marked);
    if (filterMarked === undefined) errors.push({ field: 'filter_marked', code: 'invalid', details: 'filter_marked must be a boolean.' });
    const searchPath = searchPathOf(body, scope, errors);
    const name = searchNameOf(body, file.filename, errors);
    if (errors.length) throw validationError(errors);
    assertWithinHome(searchPath, scope);
    const query: DocumentQuery = { blob: `searches/documents/${randomUUID()}`, name, search_path: searchPath, filter_marked: filterMarked ?? null, sync: false };
    await this.blobs.put(query.blob, file.data);
    return { query, sync: false, name: query.name };
  }

  async run(query: DocumentQuery, scope: SearchScope): Promise<unknown[]> {
    const data = await requireBlob(this.blobs, query.blob);
    const found = new Map<number, { media: MediaRecord; pages: Set<number>; watermarked: boolean; credits: Set<string> }>();
    try {
      const seen = new Map<string, { media: MediaRecord; watermarked: boolean }[]>();
      for await (const page of extractPdfInWorker(data, { limits: limitsFrom(this.settings, this.core) })) {
        for (const image of page.images) {
          let hits = seen.get(image.md5);
          if (!hits) {
            let prepared;
            try {
              prepared = await prepareQuery(image.bytes);
            } catch {
              continue; // an image too small or flat to fingerprint finds nothing
            }
            const identified = await this.identification.identify(scope.accountId, prepared, {
              mode: 'near_duplicate',
              transforms: ['scale', 'perspective'],
              searchPath: query.search_path,
              detect: true,
              limit: 5,
            });
            hits = identified.map((r) => ({ media: r.media, watermarked: r.watermarked === true }));
            seen.set(image.md5, hits);
          }
          for (const h of hits) {
            const entry = found.get(h.media.id) ?? { media: h.media, pages: new Set<number>(), watermarked: false, credits: new Set<string>() };
            entry.pages.add(page.pageNumber);
            entry.watermarked ||= h.watermarked;
            if (image.credit) entry.credits.add(image.credit);
            found.set(h.media.id, entry);
          }
        }
      }
    } catch (err) {
      if (err instanceof DocumentError) throw new ApiError(422, err.code, err.message);
      throw codecApiError(err);
    } finally {
      await this.blobs.delete(query.blob).catch(() => undefined);
    }
    return [...found.values()]
      .filter((f) => query.filter_marked === null || f.watermarked === query.filter_marked)
      .sort((a, b) => Math.min(...a.pages) - Math.min(...b.pages) || a.media.id - b.media.id)
      .map((f) => ({
        id: null,
        created: f.media.created.toISOString(),
        type: 'user',
        watermarked: f.watermarked,
        page_numbers: [...f.pages].sort((a, b) => a - b),
        credits: [...f.credits],
        image: { ...imageView(f.media, scope.baseUrl), metadata: f.media.metadata },
      }));
  }

  describe(query: DocumentQuery): Record<string, unknown> {
    const { blob: _blob, ...shown } = query;
    return shown;
  }
}
