import { inject, injectable } from 'inversify';
import { allowHostsFromEnv, fetchResource } from '@filigrane/net';
import { badRequest, TOKENS, type AppConfig, type MatchPipeline, type Sighting, type SightingMatch } from '@filigrane/core';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { prepareQuery, sniffFormat } from '@filigrane/vision';
import { IdentificationService } from './identification.service.js';

const MAX_SIGHTING_BYTES = 50 * 1024 * 1024;

/**
 * The match pipeline every tracking source feeds: identify the registered originals a sighting
 * derives from (visual index + geometric validation), test the watermark with each original's
 * key, and record or update the match.
 */
@injectable()
export class MatchPipelineService implements MatchPipeline {
  constructor(
    @inject(IdentificationService) private readonly identification: IdentificationService,
    @inject(MatchRecorder) private readonly recorder: MatchRecorder,
    @inject(TOKENS.Config) private readonly config: AppConfig,
  ) {}

  async submit(sighting: Sighting): Promise<SightingMatch[]> {
    const bytes = sighting.image.bytes ?? (await this.fetch(sighting.image.url));
    const query = await prepareQuery(bytes);
    const found = await this.identification.identify(sighting.accountId, query, {
      mode: 'near_duplicate',
      transforms: sighting.transforms ?? ['scale', 'perspective'],
      searchPath: sighting.searchPath,
      detect: true,
      limit: 5,
    });
    const matches: SightingMatch[] = [];
    for (const f of found) {
      const recorded = await this.recorder.record({
        sighting,
        mediaId: f.media.id,
        watermarked: f.watermarked === true,
        exclusive: f.media.exclusive,
        query: { width: query.image.originalWidth, height: query.image.originalHeight, format: sniffFormat(bytes) ?? null },
      });
      matches.push({ matchId: String(recorded.id), mediaId: f.media.id, watermarked: f.watermarked === true, created: recorded.created });
    }
    return matches;
  }

  private async fetch(url: string | undefined): Promise<Buffer> {
    if (!url) throw badRequest('invalid_sighting', 'A sighting needs the image bytes or its URL.');
    return (await fetchResource(url, { maxBytes: MAX_SIGHTING_BYTES, allowHosts: allowHostsFromEnv(this.config.extra) })).body;
  }
}
