/**
 * Geometric registration of a query onto a reference from ORB matches: knn(2) + ratio test, then a
 * RANSAC fit of the allowed model. Also ECC sub-pixel refinement on the canonical grid.
 */
import { invert, type Mat3 } from './homography';
import { loadOpenCv, withMats, type OpenCv } from './opencv';
import { DESCRIPTOR_BYTES, type OrbFeatures } from './orb';

export type GeometricModel = 'scale' | 'affine' | 'perspective';

export interface RegisterOptions {
  ratio?: number;
  /** RANSAC reprojection threshold in reference pixels. */
  ransacThreshold?: number;
  minInliers?: number;
}

export interface Registration {
  /** Maps query pixel coordinates to reference pixel coordinates. */
  homography: Mat3;
  inliers: number;
  matches: number;
}

interface Correspondences {
  src: Float32Array;
  dst: Float32Array;
  count: number;
}

function ratioMatches(cv: OpenCv, query: OrbFeatures, reference: OrbFeatures, ratio: number): Correspondences {
  return withMats((track) => {
    const qd = track(new cv.Mat(query.count, DESCRIPTOR_BYTES, cv.CV_8UC1));
    qd.data.set(query.descriptors);
    const rd = track(new cv.Mat(reference.count, DESCRIPTOR_BYTES, cv.CV_8UC1));
    rd.data.set(reference.descriptors);
    const matcher = track(new cv.BFMatcher(cv.NORM_HAMMING, false));
    const knn = track(new cv.DMatchVectorVector());
    matcher.knnMatch(qd, rd, knn, 2);
    const src: number[] = [];
    const dst: number[] = [];
    for (let i = 0; i < knn.size(); i++) {
      const pair = knn.get(i);
      if (pair.size() >= 2) {
        const a = pair.get(0);
        const b = pair.get(1);
        if (a.distance < ratio * b.distance) {
          src.push(query.points[2 * a.queryIdx], query.points[2 * a.queryIdx + 1]);
          dst.push(reference.points[2 * a.trainIdx], reference.points[2 * a.trainIdx + 1]);
        }
      }
      pair.delete();
    }
    return { src: Float32Array.from(src), dst: Float32Array.from(dst), count: src.length / 2 };
  });
}

const matchCache = new WeakMap<OrbFeatures, WeakMap<OrbFeatures, Map<number, Correspondences>>>();

/** The ratio matches of a query and a reference, computed once: each model tried reuses them. */
function cachedMatches(cv: OpenCv, query: OrbFeatures, reference: OrbFeatures, ratio: number): Correspondences {
  let byReference = matchCache.get(query);
  if (!byReference) matchCache.set(query, (byReference = new WeakMap()));
  let byRatio = byReference.get(reference);
  if (!byRatio) byReference.set(reference, (byRatio = new Map()));
  let c = byRatio.get(ratio);
  if (!c) byRatio.set(ratio, (c = ratioMatches(cv, query, reference, ratio)));
  return c;
}

/** Counter-clockwise quarter turns about the origin, as [a, b, c, d] in x' = a x + b y, y' = c x + d y. */
const TURNS = { 1: [0, -1, 1, 0], 2: [-1, 0, 0, -1], 3: [0, 1, -1, 0] } as const;

/** The matches with the query's points turned by `turn` quarter turns. */
function turnedMatches(c: Correspondences, turn: 1 | 2 | 3): Correspondences {
  const [a, b, cc, d] = TURNS[turn];
  const src = new Float32Array(c.src.length);
  for (let i = 0; i < c.count; i++) {
    const x = c.src[2 * i]!, y = c.src[2 * i + 1]!;
    src[2 * i] = a * x + b * y;
    src[2 * i + 1] = cc * x + d * y;
  }
  return { src, dst: c.dst, count: c.count };
}

/** A fit on turned query points as a map of the query's own points: the scale times the turn. */
function withTurn(m: Mat3, turn: 1 | 2 | 3): Mat3 {
  const [a, b, c, d] = TURNS[turn];
  const s = m[0];
  return [s * a, s * b, m[2], s * c, s * d, m[5], 0, 0, 1];
}

/**
 * A corner found at several of ORB's pyramid levels gives several matches at one spot, and a dozen
 * of them agree with any transform about that spot: a 30-degree turn fitted as a mere scale (1 in
 * 100 keys of the test photo), or an affine through that spot and two chance matches. So the
 * inliers must also lie at enough distinct spots of the reference (SPOT_RADIUS pixels apart on its
 * 512-px grid): half the inliers asked. A copy's inliers lie over the whole shared region.
 */
const SPOT_RADIUS = 4;

/** How many distinct spots the inliers (indices into `c`) lie at on the reference, up to `enough`. */
function spots(c: Correspondences, inliers: number[], enough: number): number {
  const kept: number[] = [];
  for (const i of inliers) {
    const x = c.dst[2 * i]!, y = c.dst[2 * i + 1]!;
    if (kept.some((k) => Math.abs(c.dst[2 * k]! - x) < SPOT_RADIUS && Math.abs(c.dst[2 * k + 1]! - y) < SPOT_RADIUS)) continue;
    kept.push(i);
    if (kept.length >= enough) break;
  }
  return kept.length;
}

/** A fitted model, its inlier count and the inliers (indices into the correspondences). */
interface Fit {
  m: Mat3;
  inliers: number;
  keep: number[];
}

/** Isotropic scale + translation (no rotation: turns are fitted on turned points), by RANSAC on pairs then least squares on inliers. */
function fitScale(c: Correspondences, threshold: number): Fit | undefined {
  const { src, dst, count } = c;
  const countInliers = (s: number, tx: number, ty: number, keep?: number[]): number => {
    let n = 0;
    for (let i = 0; i < count; i++) {
      const ex = s * src[2 * i] + tx - dst[2 * i];
      const ey = s * src[2 * i + 1] + ty - dst[2 * i + 1];
      if (ex * ex + ey * ey < threshold * threshold) {
        n++;
        keep?.push(i);
      }
    }
    return n;
  };
  let best = { s: 0, tx: 0, ty: 0, n: 0 };
  // Deterministic pair sampling (a fixed LCG): registration must never depend on the key or on chance.
  let state = 12345;
  const next = (): number => (state = (state * 1103515245 + 12345) >>> 0) % count;
  for (let it = 0; it < 500 && count >= 2; it++) {
    const i = next();
    const j = next();
    const qx = src[2 * j] - src[2 * i];
    const qy = src[2 * j + 1] - src[2 * i + 1];
    const q2 = qx * qx + qy * qy;
    if (q2 < 4) continue;
    const s = (qx * (dst[2 * j] - dst[2 * i]) + qy * (dst[2 * j + 1] - dst[2 * i + 1])) / q2;
    if (!(s > 0)) continue;
    const tx = dst[2 * i] - s * src[2 * i];
    const ty = dst[2 * i + 1] - s * src[2 * i + 1];
    const n = countInliers(s, tx, ty);
    if (n > best.n) best = { s, tx, ty, n };
  }
  if (best.n < 2) return undefined;
  const keep: number[] = [];
  countInliers(best.s, best.tx, best.ty, keep);
  // Least squares for (s, tx, ty) on the inliers.
  let mx = 0, my = 0, nx = 0, ny = 0;
  for (const i of keep) {
    mx += src[2 * i]; my += src[2 * i + 1]; nx += dst[2 * i]; ny += dst[2 * i + 1];
  }
  mx /= keep.length; my /= keep.length; nx /= keep.length; ny /= keep.length;
  let num = 0, den = 0;
  for (const i of keep) {
    const ax = src[2 * i] - mx, ay = src[2 * i + 1] - my;
    num += ax * (dst[2 * i] - nx) + ay * (dst[2 * i + 1] - ny);
    den += ax * ax + ay * ay;
  }
  const s = den > 0 ? num / den : best.s;
  const m: Mat3 = [s, 0, nx - s * mx, 0, s, ny - s * my, 0, 0, 1];
  const final: number[] = [];
  countInliers(s, m[2], m[5], final);
  return { m, inliers: final.length, keep: final };
}

/**
 * Registers `query` onto `reference` with the given model. Returns undefined when there are fewer
 * than `minInliers` (default 12) RANSAC inliers: then the geometry is not trusted at all.
 */
export async function registerQuery(
  query: OrbFeatures,
  reference: OrbFeatures,
  model: GeometricModel,
  options: RegisterOptions = {},
): Promise<Registration | undefined> {
  const minInliers = options.minInliers ?? 12;
  const threshold = options.ransacThreshold ?? 3;
  if (query.count < 2 || reference.count < 2) return undefined;
  const { cv } = await loadOpenCv();
  const c = cachedMatches(cv, query, reference, options.ratio ?? 0.8);
  if (c.count < Math.max(4, minInliers)) return undefined;
  // Enough inliers, at enough spots. Spots only refuse a fit the count chose: a copy's own fit holds
  // its duplicates too, so the count still picks it; no fit is admitted that the count alone refused.
  const minSpots = Math.ceil(minInliers / 2);
  const holds = (f: Fit | undefined): boolean => !!f && f.inliers >= minInliers && spots(c, f.keep, minSpots) >= minSpots;
  let fit: Fit | undefined;
  if (model === 'scale') {
    fit = fitScale(c, threshold);
    // A quarter turn is not an edit of the picture but of its file (an EXIF orientation baked into
    // the pixels, or dropped): tried only when the upright fit fails, so the common case pays nothing.
    for (const turn of [1, 2, 3] as const) {
      if (holds(fit)) break;
      const turned = fitScale(turnedMatches(c, turn), threshold);
      if (turned && turned.inliers > (fit?.inliers ?? 0)) fit = { m: withTurn(turned.m, turn), inliers: turned.inliers, keep: turned.keep };
    }
  } else {
    fit = withMats((track) => {
      const src = track(cv.matFromArray(c.count, 1, cv.CV_32FC2, Array.from(c.src)));
      const dst = track(cv.matFromArray(c.count, 1, cv.CV_32FC2, Array.from(c.dst)));
      const mask = track(new cv.Mat());
      const out = track(
        model === 'perspective'
          ? cv.findHomography(src, dst, cv.RANSAC, threshold, mask, 2000, 0.995)
          : cv.estimateAffine2D(src, dst, mask, cv.RANSAC, threshold, 2000, 0.99, 10),
      );
      if (out.empty() || out.rows < 2) return undefined;
      const d = out.data64F as Float64Array;
      const m: Mat3 = model === 'perspective' ? (Array.from(d.subarray(0, 9)) as Mat3) : [d[0], d[1], d[2], d[3], d[4], d[5], 0, 0, 1];
      const keep: number[] = [];
      for (let i = 0; i < mask.rows; i++) if (mask.data[i]) keep.push(i);
      return { m, inliers: keep.length, keep };
    });
  }
  if (!fit || !holds(fit) || fit.m.some((v) => !Number.isFinite(v))) return undefined;
  return { homography: fit.m, inliers: fit.inliers, matches: c.count };
}

export interface EccOptions {
  iterations?: number;
  epsilon?: number;
}

/**
 * ECC alignment of `warped` (the query already resampled on the reference grid) to `reference`.
 * Returns the correction C such that the refined query-to-reference map is C * H, or undefined if
 * ECC did not converge. Both planes are w x h on the 0..255 scale; `mask` marks valid warped pixels.
 */
export async function refineEcc(
  reference: Float32Array,
  warped: Float32Array,
  mask: Uint8Array,
  width: number,
  height: number,
  model: GeometricModel,
  options: EccOptions = {},
): Promise<Mat3 | undefined> {
  const { cv } = await loadOpenCv();
  try {
    return withMats((track) => {
      const template = track(new cv.Mat(height, width, cv.CV_32FC1));
      template.data32F.set(reference);
      const input = track(new cv.Mat(height, width, cv.CV_32FC1));
      input.data32F.set(warped);
      const m = track(new cv.Mat(height, width, cv.CV_8UC1));
      m.data.set(mask);
      const homography = model === 'perspective';
      const warp = track(homography ? cv.Mat.eye(3, 3, cv.CV_32F) : cv.Mat.eye(2, 3, cv.CV_32F));
      const criteria = new cv.TermCriteria(cv.TermCriteria_COUNT + cv.TermCriteria_EPS, options.iterations ?? 30, options.epsilon ?? 1e-4);
      cv.findTransformECC(template, input, warp, homography ? cv.MOTION_HOMOGRAPHY : cv.MOTION_AFFINE, criteria, m, 5);
      const w = warp.data32F as Float32Array;
      // ECC's warp maps template (reference) coordinates into the warped query: invert it.
      const W: Mat3 = homography ? (Array.from(w.subarray(0, 9)) as Mat3) : [w[0], w[1], w[2], w[3], w[4], w[5], 0, 0, 1];
      if (W.some((v) => !Number.isFinite(v))) return undefined;
      return invert(W);
    });
  } catch {
    // opencv.js throws a bare number (an exception pointer) when ECC diverges.
    return undefined;
  }
}

