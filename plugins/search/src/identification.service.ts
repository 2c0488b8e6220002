import { inject, injectable } from 'inversify';
import { In, type DataSource } from 'typeorm';
import { TOKENS, type BlobStore, type SecretBox } from '@filigrane/core';
import { blobKeys, decodeReduced, Media } from '@filigrane/plugin-media';
import { prepareQuery, PreparedQuery, queryFingerprint, registerQuery, transformPlausibility, type GeometricModel } from '@filigrane/vision';
import { detect, type EmbeddingParams } from '@filigrane/watermark';
import { VisualIndexService } from './visual-index.service.js';

export interface IdentifyOptions {
  mode: 'near_duplicate' | 'similar' | 'leaks';
  /** Allowed geometric models; default ['scale'] (leaks: ['scale', 'perspective']). */
  transforms: GeometricModel[];
  /** Only media at or below this path (already checked to be within the caller's home). */
  searchPath?: string;
  /** Run watermark detection with the original's key when the original is watermarked. */
  detect: boolean;
  /** At most this many results (default 10), best first. */
  limit?: number;
}

export interface Identified {
  media: Media;
  /** RANSAC inliers of the validation (the exact-copy fast path reports its own strength). */
  inliers: number;
  exact: boolean;
  /** Detection result; null when not run (plain media, similar mode, detect=false). */
  watermarked: boolean | null;
}

/** Candidates verified by RANSAC per query: each costs ~15 ms per model tried. */
const VERIFIED = { near_duplicate: 4, leaks: 6, similar: 2 } as const;
/** Inliers the validation needs: 12 for the 3-parameter scale model, more for the freer ones. */
const MIN_INLIERS: Record<GeometricModel, number> = { scale: 12, affine: 15, perspective: 15 };
/** Candidates with fewer votes than this share of the best candidate's are not validated. */
const VOTE_FLOOR = 0.25;
/** Strength reported for an exact copy (no RANSAC ran): above any plausible inlier count. */
export const EXACT_STRENGTH = 1000;
const ORDER: GeometricModel[] = ['scale', 'affine', 'perspective'];

const within = (path: string, root?: string) => !root || path === root || path.startsWith(`${root}/`);

/**
 * Which registered originals a query image derives from: exact-copy fast path, LSH voting in the
 * account's visual index, existence check in PostgreSQL, RANSAC validation under the allowed
 * models, then (near_duplicate and leaks) watermark detection with the original's key.
 */
@injectable()
export class IdentificationService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.SecretBox) private readonly box: SecretBox,
    @inject(VisualIndexService) private readonly index: VisualIndexService,
  ) {}

  async identify(accountId: number, query: Buffer | PreparedQuery, options: IdentifyOptions): Promise<Identified[]> {
    const limit = options.limit ?? 10;
    const models = ORDER.filter((m) => (options.transforms.length ? options.transforms : ['scale']).includes(m));
    const prepared = query instanceof PreparedQuery ? query : await prepareQuery(query);
    const fp = await queryFingerprint(prepared);
    const { exact, voted } = await this.index.candidates(accountId, fp, Math.max(VERIFIED[options.mode], limit));
    // One round trip loads the candidates' rows; a media deleted by any process has none any more.
    const ids = [...new Set([...exact, ...voted.map((c) => c.id)])];
    const rows = ids.length ? await this.db.manager.find(Media, { where: { id: In(ids), accountId } }) : [];
    const media = new Map(rows.filter((m) => m.type === 'image' && within(m.path, options.searchPath)).map((m) => [m.id, m]));

    const found: Identified[] = [];
    const exactIds = exact.filter((id) => media.has(id));
    for (const id of exactIds) found.push({ media: media.get(id)!, inliers: EXACT_STRENGTH, exact: true, watermarked: null });
    // Noise candidates collect a handful of votes, a copy's original dozens to hundreds: candidates
    // far below the best are not worth a RANSAC (~15 ms each).
    const floor = (voted[0]?.votes ?? 0) * VOTE_FLOOR;
    const toVerify = voted.filter((c) => media.has(c.id) && !exactIds.includes(c.id) && c.votes >= floor).slice(0, VERIFIED[options.mode]);
    const features = await this.index.features(accountId, toVerify.map((c) => c.id));
    for (const c of toVerify) {
      const reference = features.get(c.id);
      if (!reference) continue;
      for (const model of models) {
        const reg = await registerQuery(fp.features, reference, model, { minInliers: MIN_INLIERS[model] });
        const q = fp.features;
        if (reg && transformPlausibility(reg.homography, q.width, q.height, reference.width, reference.height).ok) {
          found.push({ media: media.get(c.id)!, inliers: reg.inliers, exact: false, watermarked: null });
          break;
        }
      }
    }
    found.sort((a, b) => b.inliers - a.inliers || a.media.id - b.media.id);
    const results = found.slice(0, limit);
    if (options.detect && options.mode !== 'similar') {
      const strongest = models[models.length - 1] ?? 'scale';
      for (const r of results) r.watermarked = await this.detect(prepared, r.media, strongest);
    }
    return results;
  }

  /** Watermark decision with the original's key; only the boolean leaves the watermark package. */
  private async detect(query: PreparedQuery, media: Media, transforms: GeometricModel): Promise<boolean | null> {
    if (media.kind !== 'watermarked' || !media.sealedKey || !media.params) return null;
    const stored = await this.blobs.get(blobKeys(media.id).reduced);
    const reduced = stored ? decodeReduced(stored) : undefined;
    const key = this.box.open(media.sealedKey);
    const result = await detect(query, { key, params: media.params as unknown as EmbeddingParams, reduced }, { transforms });
    return result.watermarked;
  }
}
