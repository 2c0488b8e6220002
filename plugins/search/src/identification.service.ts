import { inject, injectable } from 'inversify';
import { TOKENS, type MediaReader, type MediaRecord } from '@filigrane/core';
import { matchedRegion, prepareQuery, PreparedQuery, queryFingerprint, queryGridSize, registerQuery, transformPlausibility, unmirroredRegion, votingSubset, type Candidate, type GeometricModel, type VisualFingerprint } from '@filigrane/vision';
import { detectAmong, type DetectionReference, type EmbeddingParams, type ReducedOriginal } from '@filigrane/watermark';
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
  /**
   * Read the fallbacks' votes at once, beside the straight pass, instead of after it found nothing:
   * lower latency for the images that identify nothing (most of a crawl), one wasted read for those
   * that do (most searches, which leave it off).
   */
  speculate?: boolean;
}

export interface Identified {
  media: MediaRecord;
  /** RANSAC inliers of the validation (the exact-copy fast path reports its own strength). */
  inliers: number;
  exact: boolean;
  /** Detection result; null when not run (plain media, similar mode, detect=false). */
  watermarked: boolean | null;
  /** Where the copy and the original overlap (matchedRegion), when a geometry was validated. */
  region?: { copy: number[]; original: number[] };
}

/** The whole image (an exact copy overlaps its original everywhere). */
const FULL_FRAME = [0, 0, 1, 0, 1, 1, 0, 1];

/** Candidates verified by RANSAC per query: each costs ~15 ms per model tried. */
const VERIFIED = { near_duplicate: 4, leaks: 6, similar: 2 } as const;
/** Inliers the validation needs: 12 for the 3-parameter scale model, more for the freer ones. */
const MIN_INLIERS: Record<GeometricModel, number> = { scale: 12, affine: 15, perspective: 15 };
/** Candidates with fewer votes than this share of the best candidate's are not validated. */
const VOTE_FLOOR = 0.25;
/** Strength reported for an exact copy (no RANSAC ran): above any plausible inlier count. */
export const EXACT_STRENGTH = 1000;
/** Copies of one picture tested at most: transactional copies are one per recipient. */
const MAX_SAME_PIXELS = 500;
const ORDER: GeometricModel[] = ['scale', 'affine', 'perspective'];
/** Reductions of the query proxy tried for a small crop when nothing else was found. */
const CROP_REDUCTIONS = [0.5, 0.25];
/**
 * Query descriptors that vote, of the fingerprint's 1,000 (votingSubset: the index's own spread
 * selection): each costs one index probe per LSH table, and ORB's first points in each cell, the
 * kind the index keeps, carry most of an original's votes. On 221 attacked copies at 10,000 media
 * (docs/visual-index.md, session 8), 750 find every copy the full vote found, 500 lose originals
 * that only a fallback then finds; the fallbacks (a mirror collects hundreds of votes, a reduction
 * has fewer points anyway) find the same copies with 500.
 */
const STRAIGHT_VOTERS = 750;
const FALLBACK_VOTERS = 500;

const within = (path: string, root?: string) => !root || path === root || path.startsWith(`${root}/`);

/**
 * Results without the look-alikes of a detected copy: the media with its pixels (the other
 * recipients' transactional copies) whose mark is absent. The match names the copy that leaked.
 */
export function withoutLookAlikes(found: Identified[]): Identified[] {
  const leaked = new Set(found.filter((f) => f.watermarked === true && f.media.pixelHash).map((f) => f.media.pixelHash!.toString('hex')));
  return found.filter((f) => f.watermarked === true || !f.media.pixelHash || !leaked.has(f.media.pixelHash.toString('hex')));
}

/**
 * Which registered originals a query image derives from: exact-copy fast path, LSH voting in the
 * account's visual index, existence check in PostgreSQL, RANSAC validation under the allowed
 * models, then (near_duplicate and leaks) watermark detection with each candidate's key; a
 * candidate whose mark is detected comes first.
 */
@injectable()
export class IdentificationService {
  constructor(
    @inject(TOKENS.MediaReader) private readonly mediaReader: MediaReader,
    @inject(VisualIndexService) private readonly index: VisualIndexService,
  ) {}

  async identify(accountId: number, query: Buffer | PreparedQuery, options: IdentifyOptions): Promise<Identified[]> {
    const limit = options.limit ?? 10;
    const models = ORDER.filter((m) => (options.transforms.length ? options.transforms : ['scale']).includes(m));
    const prepared = query instanceof PreparedQuery ? query : await prepareQuery(query);
    // Copies the straight pass cannot see: a mirror, and a small crop whose part of the original is
    // beyond ORB's scale range at the canonical grid (see PreparedQuery.reduced). Each fallback is
    // one more fingerprint of the proxy (no new decode), validated only when nothing else is.
    const fallbacks = this.fallbacks(prepared);
    // Promise.all subscribes to each at once: one failing before it is awaited is not an unhandled rejection.
    const fingerprints = () => {
      const each = fallbacks.map((q) => queryFingerprint(q, { threaded: true }));
      const all = Promise.all(each);
      all.catch(() => undefined);
      return { each, all };
    };
    // Crawled images that identify nothing (most of a crawl) need them all (speculate): their ORB
    // runs in the fingerprint threads beside the straight one, the mirror is voted in the straight
    // pass's statement and the reductions in a second one at the same time, so the two reads share
    // the cores. A search that finds its original straight starts them only after its own ORB.
    const early = options.speculate ? fingerprints() : undefined;
    const fp = await queryFingerprint(prepared);
    const { each: started, all: pending } = early ?? fingerprints();
    const max = Math.max(VERIFIED[options.mode], limit);
    // A reduction's vote is wide (its original stands out little from look-alikes); a mirror's is not.
    const fallbackVote = (f: VisualFingerprint, k: number) => ({
      fingerprint: { ...f, features: votingSubset(f.features, FALLBACK_VOTERS) },
      wide: fallbacks[k]!.isMirror === prepared.isMirror,
    });
    const mirrorFp = options.speculate ? await started[0]! : undefined;
    const speculated = options.speculate ? pending.then((fps) => this.index.votes(accountId, fps.slice(1).map((f, k) => fallbackVote(f, k + 1)), max)) : undefined;
    speculated?.catch(() => undefined);
    const straight = await this.index.candidates(accountId, { ...fp, features: votingSubset(fp.features, STRAIGHT_VOTERS) }, max, mirrorFp ? [fallbackVote(mirrorFp, 0)] : []);
    const found = await this.validated(accountId, fp, straight.exact, straight.voted, options, models);
    if (!found.length) {
      const fps = await pending;
      const votes = speculated ? [...straight.alsoVoted, ...(await speculated)] : await this.index.votes(accountId, fps.map(fallbackVote), max);
      for (const [k, q] of fallbacks.entries()) {
        const more = await this.validated(accountId, fps[k]!, [], votes[k]!, options, models);
        // A reduction keeps the fractions the region is given in; the mirror's region is flipped
        // back into the copy's own coordinates.
        found.push(...(q.isMirror === prepared.isMirror ? more : more.map((f) => ({ ...f, region: f.region && unmirroredRegion(f.region) }))));
        if (found.length) break;
      }
    }
    found.push(...(await this.samePixels(accountId, found, options)));
    if (options.detect && options.mode !== 'similar') {
      // Every validated candidate is tested, not only the visually best: the copies of one picture
      // look alike and only the watermark tells which one leaked.
      const strongest = models[models.length - 1] ?? 'scale';
      const decisions = await this.detect(prepared, found.map((f) => f.media), strongest);
      for (const [i, f] of found.entries()) f.watermarked = decisions[i]!;
    }
    found.sort((a, b) => Number(b.watermarked === true) - Number(a.watermarked === true) || b.inliers - a.inliers || a.media.id - b.media.id);
    return found.slice(0, limit);
  }

  /**
   * The fallback queries, in the order they are tried: the mirror, then the reductions. A reduction
   * whose grid is the straight query's (a proxy of 1024 px reduced by 0.5 is area-reduced to the
   * same 512-px grid) has the straight query's fingerprint and can find nothing it did not.
   */
  private fallbacks(prepared: PreparedQuery): PreparedQuery[] {
    const grid = queryGridSize(prepared);
    const reductions = CROP_REDUCTIONS.map((f) => prepared.reduced(f)?.query).filter((q): q is PreparedQuery => {
      if (!q) return false;
      const g = queryGridSize(q);
      return g.width !== grid.width || g.height !== grid.height;
    });
    return [prepared.mirrored(), ...reductions];
  }

  /**
   * Exact copies (straight pass only: a mirror is never an exact copy) and the RANSAC-validated
   * candidates of one fingerprint's votes.
   */
  private async validated(accountId: number, fp: VisualFingerprint, exact: number[], voted: Candidate[], options: IdentifyOptions, models: GeometricModel[]): Promise<Identified[]> {
    // One round trip loads the candidates' rows; a media deleted by any process has none any more.
    const ids = [...new Set([...exact, ...voted.map((c) => c.id)])];
    const rows = await this.mediaReader.byIds(ids, accountId);
    const media = new Map(rows.filter((m) => this.eligible(m, options)).map((m) => [m.id, m]));

    const found: Identified[] = [];
    const exactIds = exact.filter((id) => media.has(id));
    for (const id of exactIds) found.push({ media: media.get(id)!, inliers: EXACT_STRENGTH, exact: true, watermarked: null, region: { copy: FULL_FRAME, original: FULL_FRAME } });
    // Noise candidates collect a handful of votes, a copy's original dozens to hundreds: candidates
    // far below the best are not worth a RANSAC (~15 ms each). Media with the same pixels (the
    // transactional copies of one original) have the same fingerprint: one RANSAC validates them all.
    const floor = (voted[0]?.votes ?? 0) * VOTE_FLOOR;
    const seen = new Set<string>();
    const toVerify = voted
      .filter((c) => media.has(c.id) && !exactIds.includes(c.id) && c.votes >= floor)
      .filter((c) => {
        const hash = media.get(c.id)!.pixelHash?.toString('hex');
        if (!hash) return true;
        if (seen.has(hash)) return false;
        seen.add(hash);
        return true;
      })
      .slice(0, VERIFIED[options.mode]);
    const features = await this.index.features(accountId, toVerify.map((c) => c.id));
    for (const c of toVerify) {
      const reference = features.get(c.id);
      if (!reference) continue;
      for (const model of models) {
        const reg = await registerQuery(fp.features, reference, model, { minInliers: MIN_INLIERS[model] });
        const q = fp.features;
        if (reg && transformPlausibility(reg.homography, q.width, q.height, reference.width, reference.height).ok) {
          found.push({ media: media.get(c.id)!, inliers: reg.inliers, exact: false, watermarked: null, region: matchedRegion(reg.homography, q.width, q.height, reference.width, reference.height) });
          break;
        }
      }
    }
    return found;
  }

  private eligible(m: MediaRecord, options: IdentifyOptions): boolean {
    return m.type === 'image' && within(m.path, options.searchPath);
  }

  /**
   * The other media with the pixels of a validated candidate (transactional copies, the same
   * image registered twice): validated by the same geometry, whether the vote listed them or not.
   */
  private async samePixels(accountId: number, found: Identified[], options: IdentifyOptions): Promise<Identified[]> {
    const byHash = new Map<string, Identified>();
    for (const f of found) {
      const hash = f.media.pixelHash?.toString('hex');
      if (hash && !byHash.has(hash)) byHash.set(hash, f);
    }
    if (!byHash.size) return [];
    const known = new Set(found.map((f) => f.media.id));
    const rows = await this.mediaReader.byPixelHash(accountId, [...byHash.keys()].map((h) => Buffer.from(h, 'hex')), MAX_SAME_PIXELS);
    return rows
      .filter((m) => !known.has(m.id) && this.eligible(m, options))
      .map((m) => {
        const like = byHash.get(m.pixelHash!.toString('hex'))!;
        return { media: m, inliers: like.inliers, exact: like.exact, watermarked: null, region: like.region };
      });
  }

  /**
   * Watermark decisions with each original's key; only booleans leave the watermark package.
   * Media with the same pixels share one reduced original, hence one registration of the query.
   */
  private async detect(query: PreparedQuery, candidates: MediaRecord[], transforms: GeometricModel): Promise<(boolean | null)[]> {
    const reduced = new Map<string, Promise<ReducedOriginal | undefined>>();
    const references: DetectionReference[] = [];
    const slots: number[] = [];
    for (const [i, media] of candidates.entries()) {
      if (media.kind !== 'watermarked') continue;
      const ref = await this.mediaReader.keyReference(media.id);
      if (!ref) continue;
      const hash = media.pixelHash?.toString('hex') ?? `media:${media.id}`;
      if (!reduced.has(hash)) reduced.set(hash, this.mediaReader.reducedOriginal(media.id));
      references.push({ key: ref.key, params: ref.params as unknown as EmbeddingParams, reduced: await reduced.get(hash) });
      slots.push(i);
    }
    const out: (boolean | null)[] = candidates.map(() => null);
    const decisions = await detectAmong(query, references, { transforms });
    for (const [k, i] of slots.entries()) out[i] = decisions[k]!;
    return out;
  }
}
