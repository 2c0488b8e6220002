import { createHash } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { fetchResource } from '@filigrane/net';
import { badRequest, CORE_SETTINGS, type CoreSettings, type MatchPipeline, type MediaReader, type Sighting, type SightingMatch, type SubmitOptions, TOKENS, withTempFile } from '@filigrane/core';
import { CreditNamesService, MatchRecorder, type MatchInput } from '@filigrane/plugin-matches';
import { PreparedQuery, prepareQuery, probeImage, sniffQueryFormat } from '@filigrane/vision';
import { probeVideo } from '@filigrane/video';
import { IdentificationService, withoutLookAlikes } from './identification.service.js';
import { VideoMatchService } from './video-match.service.js';

const MAX_SIGHTING_BYTES = 50 * 1024 * 1024;

/** What a match keeps of the query file: its size (when it could be read), format and MD5. */
function queryInfo(bytes: Buffer, size: { originalWidth: number; originalHeight: number } | null): MatchInput['query'] {
  return { width: size?.originalWidth ?? null, height: size?.originalHeight ?? null, format: sniffQueryFormat(bytes) ?? null, md5: createHash('md5').update(bytes).digest('hex') };
}

/**
 * The match pipeline every tracking source feeds: identify the registered originals a sighting
 * derives from (visual index + geometric validation), test the watermark with each original's
 * key, and record or update the match. A credit line that names the account is recorded as a
 * credit match, whether or not the pixels match.
 */
@injectable()
export class MatchPipelineService implements MatchPipeline {
  constructor(
    @inject(IdentificationService) private readonly identification: IdentificationService,
    @inject(MatchRecorder) private readonly recorder: MatchRecorder,
    @inject(CreditNamesService) private readonly credits: CreditNamesService,
    @inject(VideoMatchService) private readonly videos: VideoMatchService,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
    @inject(TOKENS.MediaReader) private readonly media: MediaReader,
  ) {}

  async submit(sighting: Sighting, options: SubmitOptions = {}): Promise<SightingMatch[]> {
    if (sighting.video) return this.submitVideo(sighting, sighting.video);
    const bytes = sighting.image.bytes ?? (await this.fetch(sighting.image.url));
    if (options.reuse) return this.reuse(sighting, bytes, options.reuse);
    let query: PreparedQuery | null = null;
    let failure: unknown = null;
    try {
      query = sighting.image.prepared instanceof PreparedQuery ? sighting.image.prepared : await prepareQuery(bytes);
    } catch (err) {
      failure = err;
    }
    const info = queryInfo(bytes, query?.image ?? null);
    // The credit stands on its own: recorded even when the pixels cannot be identified.
    const matches = await this.creditMatch(sighting, info);
    if (sighting.kind === 'credit') return matches;
    if (!query) throw failure;

    const found = await this.identification.identify(sighting.accountId, query, {
      mode: 'near_duplicate',
      transforms: sighting.transforms ?? ['scale', 'perspective'],
      searchPath: sighting.searchPath,
      detect: true,
      limit: 5,
      // Most crawled images identify nothing: their fallback reads start at once.
      speculate: true,
    });
    for (const f of withoutLookAlikes(found)) {
      const watermarked = f.watermarked === true;
      const recorded = await this.recorder.record({ sighting, mediaId: f.media.id, watermarked, exclusive: f.media.exclusive, query: info, region: f.region ?? null });
      matches.push({ matchId: String(recorded.id), kind: sighting.kind, mediaId: f.media.id, watermarked, created: recorded.created });
    }
    return matches;
  }

  /** The credit match of a sighting whose credit line names the account (none otherwise). */
  private async creditMatch(sighting: Sighting, info: MatchInput['query']): Promise<SightingMatch[]> {
    if (!sighting.credit || !(await this.credits.named(sighting.accountId, sighting.credit))) return [];
    const recorded = await this.recorder.record({ sighting, mediaId: null, kind: 'credit', watermarked: false, exclusive: null, query: info });
    return [{ matchId: String(recorded.id), kind: 'credit', mediaId: null, watermarked: false, created: recorded.created }];
  }

  /**
   * An image identified earlier (the same pixels, the same account): its media recorded for this
   * sighting without identification; this sighting's own credit line decides its credit match.
   */
  private async reuse(sighting: Sighting, bytes: Buffer, previous: SightingMatch[]): Promise<SightingMatch[]> {
    const prepared = sighting.image.prepared instanceof PreparedQuery ? sighting.image.prepared : null;
    const probed = prepared ? null : await probeImage(bytes, { cmykAsRgb: true }).catch(() => null);
    const info = queryInfo(bytes, prepared ? prepared.image : probed ? { originalWidth: probed.width, originalHeight: probed.height } : null);
    const matches = await this.creditMatch(sighting, info);
    if (sighting.kind === 'credit') return matches;
    const pixels = previous.filter((m) => m.kind !== 'credit' && m.mediaId !== null);
    // Exclusivity as identification reads it: from the media (a media deleted since is skipped).
    const media = new Map((await this.media.byIds(pixels.map((m) => m.mediaId!), sighting.accountId)).map((m) => [m.id, m]));
    for (const m of pixels) {
      const found = media.get(m.mediaId!);
      if (!found) continue;
      const recorded = await this.recorder.record({ sighting, mediaId: found.id, watermarked: m.watermarked, exclusive: found.exclusive, query: info });
      matches.push({ matchId: String(recorded.id), kind: sighting.kind, mediaId: found.id, watermarked: m.watermarked, created: recorded.created });
    }
    return matches;
  }

  /** A video sighting: aligned with the account's registered videos, one web match per video found. */
  private async submitVideo(sighting: Sighting, video: NonNullable<Sighting['video']>): Promise<SightingMatch[]> {
    const bytes = video.bytes ?? (await this.fetch(video.url));
    return withTempFile(bytes, async (file) => {
      const info = await probeVideo(file, { maxDuration: this.core.maxVideoSeconds });
      const found = await this.videos.matchVideo(sighting.accountId, file, info, { searchPath: sighting.searchPath });
      const matches: SightingMatch[] = [];
      for (const { media, alignment } of found) {
        const recorded = await this.recorder.record({
          sighting,
          mediaId: media.id,
          watermarked: false,
          exclusive: media.exclusive,
          query: { width: info.width, height: info.height, format: info.format, md5: createHash('md5').update(bytes).digest('hex') },
          video: { query: alignment.query, matched: alignment.matched },
        });
        matches.push({ matchId: String(recorded.id), kind: sighting.kind, mediaId: media.id, watermarked: false, created: recorded.created });
      }
      return matches;
    });
  }

  private async fetch(url: string | undefined): Promise<Buffer> {
    if (!url) throw badRequest('invalid_sighting', 'A sighting needs the image bytes or its URL.');
    return (await fetchResource(url, { maxBytes: MAX_SIGHTING_BYTES, allowHosts: this.core.fetchAllowHosts })).body;
  }
}
