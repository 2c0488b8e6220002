import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { CORE_SETTINGS, fieldBoolean, isUploadedFile, requireBlob, TOKENS, validationError, type BlobStore, type CoreSettings, type ErrorItem, codecApiError, mediaUrl, videoView, withTempFile } from '@filigrane/core';
import { ACCEPTED_VIDEOS, probeVideo, sniffVideo } from '@filigrane/video';
import { assertWithinHome, searchNameOf, searchPathOf, type SearchExecutor, type SearchScope } from './search-executors.js';
import { VideoMatchService, type VideoMatch } from './video-match.service.js';

export interface VideoQuery {
  /** BlobStore key of the query video until the search ran. */
  blob: string;
  name: string | null;
  search_path: string;
  sync: false;
}

const FIELDS = ['file', 'name', 'sync', 'search_path'];
export const MAX_QUERY_VIDEO_BYTES = 512 * 1024 * 1024;

/** A video match in a search result: the registered video and where the copy lies in both videos. */
export function videoResult(m: VideoMatch, baseUrl: string, query: 'video' | 'still'): Record<string, unknown> {
  const a = m.alignment;
  return {
    id: null,
    created: m.media.created.toISOString(),
    type: 'user',
    watermarked: false,
    video: { ...videoView(m.media, baseUrl), media_path: m.media.path, media_url: mediaUrl(baseUrl, m.media.path), metadata: m.media.metadata },
    ...(query === 'video'
      ? { query_video_start_time: a.query.start, query_video_end_time: a.query.end, query_video_match_duration: a.query.duration }
      : {}),
    matched_video_start_time: a.matched.start,
    matched_video_end_time: a.matched.end,
    matched_video_match_duration: a.matched.duration,
  };
}

/**
 * Search by video: a video given as `file` (multipart, URL or data URI) is sampled and aligned
 * against the account's registered videos as a job (asynchronous only: 201, then poll).
 */
@injectable()
export class VideoSearchExecutor implements SearchExecutor<VideoQuery> {
  readonly kind = 'video';
  readonly priority = 20;

  constructor(
    @inject(VideoMatchService) private readonly videos: VideoMatchService,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
  ) {}

  accepts(body: Record<string, unknown>): boolean {
    return isUploadedFile(body.file) && sniffVideo(body.file.data) !== null;
  }

  async parse(body: Record<string, unknown>, scope: SearchScope): Promise<{ query: VideoQuery; sync: boolean; name: string | null }> {
    const errors: ErrorItem[] = [];
    for (const k of Object.keys(body)) {
      if (['mode', 'categories', 'transforms', 'filter_marked'].includes(k)) errors.push({ field: k, code: 'not_for_videos', details: `${k} applies to image searches only.` });
      else if (!FIELDS.includes(k)) errors.push({ field: k, code: 'unknown_field', details: `Unknown search parameter "${k}".` });
    }
    const file = body.file as { data: Buffer; filename: string | null };
    if (file.data.length > MAX_QUERY_VIDEO_BYTES) errors.push({ field: 'file', code: 'too_large', details: `At most ${MAX_QUERY_VIDEO_BYTES} bytes.` });
    const sync = body.sync === undefined ? false : fieldBoolean(body.sync);
    if (sync === undefined) errors.push({ field: 'sync', code: 'invalid', details: 'sync must be a boolean.' });
    else if (sync) errors.push({ field: 'sync', code: 'sync_not_allowed', details: 'Synchronous searches are for images only: search videos with sync=false and poll the search.' });
    const searchPath = searchPathOf(body, scope, errors);
    const name = searchNameOf(body, file.filename, errors);
    if (errors.length) throw validationError(errors);
    assertWithinHome(searchPath, scope);
    // Probed at once: an unreadable, audio-only or too long video is a 4xx now, not a failed search later.
    await withTempFile(file.data, (f) => probeVideo(f, { maxDuration: this.core.maxVideoSeconds })).catch((err: unknown) => {
      throw codecApiError(err, ACCEPTED_VIDEOS);
    });
    const query: VideoQuery = { blob: `searches/videos/${randomUUID()}`, name, search_path: searchPath, sync: false };
    await this.blobs.put(query.blob, file.data);
    return { query, sync: false, name: query.name };
  }

  async run(query: VideoQuery, scope: SearchScope): Promise<unknown[]> {
    const data = await requireBlob(this.blobs, query.blob);
    try {
      const found = await withTempFile(data, async (file) => this.videos.matchVideo(scope.accountId, file, await probeVideo(file, { maxDuration: this.core.maxVideoSeconds }), { searchPath: query.search_path }));
      return found.map((m) => videoResult(m, scope.baseUrl, 'video'));
    } catch (err) {
      throw codecApiError(err, ACCEPTED_VIDEOS);
    } finally {
      await this.blobs.delete(query.blob).catch(() => undefined);
    }
  }

  describe(query: VideoQuery): Record<string, unknown> {
    const { blob: _blob, ...shown } = query;
    return shown;
  }
}
