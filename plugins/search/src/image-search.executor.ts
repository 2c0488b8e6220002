import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { ApiError, fieldBoolean, fieldList, isUploadedFile, requireBlob, TOKENS, validationError, type BlobStore, type ErrorItem, codecApiError, imageView } from '@filigrane/core';
import { prepareQuery, queryFingerprint, sniffQueryFormat, type GeometricModel } from '@filigrane/vision';
import { ACCEPTED_VIDEOS } from '@filigrane/video';
import { IdentificationService, type IdentifyOptions } from './identification.service.js';
import { assertWithinHome, searchNameOf, searchPathOf, type SearchExecutor, type SearchScope } from './search-executors.js';
import { VideoMatchService, type VideoMatch } from './video-match.service.js';
import { videoResult } from './video-search.executor.js';

export type ImageSearchMode = IdentifyOptions['mode'];
export type ImageCategory = 'default' | 'recent' | 'archive';

export interface ImageQuery {
  /** BlobStore key of the query image (asynchronous searches); the bytes never go into the JSON. */
  blob: string | null;
  name: string | null;
  search_path: string;
  mode: ImageSearchMode;
  categories: ImageCategory[];
  transforms: GeometricModel[];
  filter_marked: boolean | null;
  sync: boolean;
}

const FIELDS = ['file', 'name', 'sync', 'search_path', 'mode', 'categories', 'transforms', 'filter_marked'];
const MODES: ImageSearchMode[] = ['near_duplicate', 'similar', 'leaks'];
const CATEGORIES: ImageCategory[] = ['default', 'recent', 'archive'];
const MODELS: GeometricModel[] = ['scale', 'affine', 'perspective'];
/** `recent`: media registered in the last 90 days. */
const RECENT_MS = 90 * 24 * 3600 * 1000;
export const MAX_QUERY_BYTES = 32 * 1024 * 1024;


/** Search by image through the visual index (IdentificationService), sync or as a job. */
@injectable()
export class ImageSearchExecutor implements SearchExecutor<ImageQuery> {
  readonly kind = 'image';
  /** Bytes of synchronous queries, held only while they run. */
  private readonly pending = new WeakMap<ImageQuery, Buffer>();

  constructor(
    @inject(IdentificationService) private readonly identification: IdentificationService,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(VideoMatchService) private readonly videos: VideoMatchService,
  ) {}

  accepts(body: Record<string, unknown>): boolean {
    return 'file' in body;
  }

  async parse(body: Record<string, unknown>, scope: SearchScope): Promise<{ query: ImageQuery; sync: boolean; name: string | null }> {
    const errors: ErrorItem[] = [];
    for (const k of Object.keys(body)) if (!FIELDS.includes(k)) errors.push({ field: k, code: 'unknown_field', details: `Unknown search parameter "${k}".` });
    const file = body.file;
    if (!isUploadedFile(file)) errors.push({ field: 'file', code: 'required', details: 'file must be an uploaded image, a URL or a data URI.' });
    else if (file.data.length === 0) errors.push({ field: 'file', code: 'empty', details: 'The file is empty.' });
    else if (file.data.length > MAX_QUERY_BYTES) errors.push({ field: 'file', code: 'too_large', details: `At most ${MAX_QUERY_BYTES} bytes.` });
    // Formats copies come in, by their bytes: SVG, TIFF and the rest never reach an image decoder.
    else if (!sniffQueryFormat(file.data)) throw new ApiError(415, 'unsupported_format', `The query must be a JPEG, PNG, GIF, WebP or AVIF image, or a video. ${ACCEPTED_VIDEOS}`);
    const mode = (body.mode ?? 'near_duplicate') as ImageSearchMode;
    if (!MODES.includes(mode)) errors.push({ field: 'mode', code: 'invalid_choice', details: 'mode is near_duplicate, similar or leaks.' });
    const categories = body.categories === undefined ? ['default'] : fieldList(body.categories);
    if (!categories.length || !categories.every((c) => CATEGORIES.includes(c as ImageCategory))) {
      errors.push({ field: 'categories', code: 'invalid_choice', details: 'categories are default, recent or archive (web is not an account category).' });
    }
    const transforms = body.transforms === undefined ? (mode === 'leaks' ? ['scale', 'perspective'] : ['scale']) : fieldList(body.transforms);
    if (!transforms.length || !transforms.every((t) => MODELS.includes(t as GeometricModel))) {
      errors.push({ field: 'transforms', code: 'invalid_choice', details: 'transforms are scale, affine or perspective.' });
    }
    const sync = body.sync === undefined ? true : fieldBoolean(body.sync);
    if (sync === undefined) errors.push({ field: 'sync', code: 'invalid', details: 'sync must be a boolean.' });
    const filterMarked = body.filter_marked === undefined || body.filter_marked === null ? null : fieldBoolean(body.filter_marked);
    if (filterMarked === undefined) errors.push({ field: 'filter_marked', code: 'invalid', details: 'filter_marked must be a boolean.' });
    const searchPath = searchPathOf(body, scope, errors);
    const name = searchNameOf(body, isUploadedFile(file) ? file.filename : null, errors);
    if (errors.length) throw validationError(errors);
    assertWithinHome(searchPath, scope);
    const data = (file as { data: Buffer }).data;
    const query: ImageQuery = {
      blob: null,
      name,
      search_path: searchPath,
      mode,
      categories: categories as ImageCategory[],
      transforms: transforms as GeometricModel[],
      filter_marked: filterMarked ?? null,
      sync: sync!,
    };
    if (sync) this.pending.set(query, data);
    else {
      query.blob = `searches/queries/${randomUUID()}`;
      await this.blobs.put(query.blob, data);
    }
    return { query, sync: sync!, name: query.name };
  }

  async run(query: ImageQuery, scope: SearchScope): Promise<unknown[]> {
    const bytes = this.pending.get(query) ?? (query.blob ? await requireBlob(this.blobs, query.blob) : null);
    if (!bytes) throw validationError([{ field: 'file', code: 'gone', details: 'The query image is no longer available.' }]);
    let found;
    let stills: VideoMatch[] = [];
    try {
      const prepared = await prepareQuery(bytes);
      // A frame grab finds the registered video it comes from, with the frame's time.
      if (query.mode !== 'leaks' && query.filter_marked !== true) stills = await this.videos.matchStill(scope.accountId, await queryFingerprint(prepared), query.search_path);
      found = await this.identification.identify(scope.accountId, prepared, {
        mode: query.mode,
        transforms: query.transforms,
        searchPath: query.search_path,
        detect: query.mode !== 'similar',
        limit: 10,
      });
    } catch (err) {
      throw codecApiError(err, ACCEPTED_VIDEOS);
    } finally {
      // An asynchronous query image is deleted once its search ran: results keep no pixels.
      if (query.blob) await this.blobs.delete(query.blob).catch(() => undefined);
    }
    const since = Date.now() - RECENT_MS;
    return found
      .filter((r) => query.mode !== 'leaks' || r.media.kind === 'watermarked')
      .filter((r) => !query.categories.every((c) => c === 'recent') || r.media.created.getTime() >= since)
      .filter((r) => query.filter_marked === null || (query.filter_marked ? r.watermarked === true : r.watermarked !== true))
      .map((r) => ({
        id: null,
        created: r.media.created.toISOString(), // as text matches: the original's registration
        type: 'user',
        watermarked: r.watermarked === true,
        image: { ...imageView(r.media, scope.baseUrl), metadata: r.media.metadata },
      }))
      .concat(stills.map((m) => videoResult(m, scope.baseUrl, 'still')) as never[]);
  }

  describe(query: ImageQuery): Record<string, unknown> {
    const { blob: _blob, ...shown } = query;
    return shown;
  }
}
