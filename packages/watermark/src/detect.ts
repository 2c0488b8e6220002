/**
 * Detection: register the query on the canonical grid under a fixed family of geometric hypotheses,
 * extract key-independent features, correlate with the keyed carrier and decide p < threshold with
 * Bonferroni over the family. The p-value stays inside this package (see internal.ts).
 */
import { performance } from 'node:perf_hooks';
import {
  areaReduce,
  computeOrbFeatures,
  localScale,
  multiply,
  prepareQuery,
  PreparedQuery,
  refineEcc,
  registerQuery,
  resizeMap,
  toGray8,
  warpToGrid,
  type GeometricModel,
  type Mat3,
  type OrbFeatures,
  type Warped,
} from '@filigrane/vision';
import { bandIndices } from './band';
import { gaussianCarrier } from './carrier';
import { blindFeatures, informedFeatures } from './features';
import { assertMediaKey } from './key';
import type { EmbeddingParams } from './params';
import { log10PValue, normalisedCorrelation } from './p-value';
import { reducedToFloat, type ReducedOriginal, type Registration } from './registration';

export const DEFAULT_THRESHOLD = 1e-6;
/** A straight registration this strong is the copy's own geometry: no mirror is looked for. */
const MIRROR_BELOW_INLIERS = 50;

export interface DetectOptions {
  /** Geometric model allowed between the original and the query (default 'perspective'). */
  transforms?: GeometricModel;
  /** False-alarm probability per test (default 1e-6). */
  threshold?: number;
  /** ECC sub-pixel refinement of each registration (default true). */
  ecc?: boolean;
  /** Refuse queries with more pixels (default 40 MP). */
  maxPixels?: number;
}

/**
 * What detection needs from a registration. A transactional registration has no reduced copy:
 * pass the `reduced` of the normal registration that has the same pixel hash.
 */
export type DetectionReference = Pick<Registration, 'key' | 'params'> & { reduced?: ReducedOriginal };

export interface DetectionDiagnostics {
  /** Host subtraction with the reduced original (informed) or whitening only (blind). */
  informed: boolean;
  /** Size of the hypothesis family (the Bonferroni factor). */
  hypotheses: number;
  /** Hypotheses actually evaluated before a decision. */
  tested: number;
  /** Feature-based registration: inliers of the RANSAC fit, or null when not attempted / failed. */
  inliers: number | null;
  /** Fraction of the original covered by the query (best hypothesis). */
  coverage: number;
  ms: number;
}

export interface DetectionResult {
  watermarked: boolean;
  diagnostics: DetectionDiagnostics;
}

export type DetectionMode = 'informed' | 'blind';

/** Features of one geometric hypothesis, reusable against any number of keys. */
export interface HypothesisFeatures {
  name: string;
  coverage: number;
  informed?: Float64Array;
  blind?: Float64Array;
}

export interface ModeOutcome {
  watermarked: boolean;
  /** log10 of the Bonferroni-corrected p-value. */
  log10p: number;
  /** Normalised correlation of the best hypothesis. */
  score: number;
  best?: string;
}

export interface DetectionAnalysis {
  family: number;
  features: HypothesisFeatures[];
  outcomes: Partial<Record<DetectionMode, ModeOutcome>>;
  diagnostics: DetectionDiagnostics;
}

export interface AnalyseOptions extends DetectOptions {
  /** Which statistics to compute (default: informed when a reduced copy exists, else blind). */
  modes?: DetectionMode[];
  /** Evaluate every hypothesis even after a decision (false-positive studies). */
  exhaustive?: boolean;
}

const referenceFeatures = new WeakMap<Uint16Array, Promise<OrbFeatures>>();

/** ORB features of a reduced original, computed once per object (issue 5 can persist them). */
export function orbOfReduced(reduced: ReducedOriginal): Promise<OrbFeatures> {
  let f = referenceFeatures.get(reduced.luma);
  if (!f) {
    f = computeOrbFeatures(toGray8(reducedToFloat(reduced)), reduced.width, reduced.height);
    referenceFeatures.set(reduced.luma, f);
  }
  return f;
}

/** Query proxies area-reduced to the grid's scale, cached per size. */
class ProxyCache {
  private readonly planes = new Map<string, Float32Array>();
  constructor(private readonly query: PreparedQuery) {}

  /** Warps the query through `toGrid`, first reducing the proxy when it is finer than the grid. */
  warp(toGrid: Mat3, w0: number, h0: number): Warped & { toGrid: Mat3 } {
    const { luma, width: qw, height: qh } = this.query.image;
    const s = localScale(toGrid, qw / 2, qh / 2);
    if (!(s < 0.8)) return { ...warpToGrid(luma, qw, qh, toGrid, w0, h0), toGrid };
    // Bilinear sampling of a finer image aliases its texture into the band: average it down first.
    const nw = Math.max(8, Math.round(qw * s));
    const nh = Math.max(8, Math.round(qh * s));
    const id = `${nw}x${nh}`;
    let plane = this.planes.get(id);
    if (!plane) {
      plane = areaReduce(luma, qw, qh, nw, nh);
      this.planes.set(id, plane);
    }
    const H = multiply(toGrid, resizeMap(nw, nh, qw, qh));
    return { ...warpToGrid(plane, nw, nh, H, w0, h0), toGrid };
  }
}

/** Reductions of the query tried when it does not register as it is (a small crop: see PreparedQuery.reduced). */
const CROP_REDUCTIONS = [0.5, 0.25];

/**
 * Feature registration of a query on the reference grid: as it is, else reduced (a small crop of a
 * large photo). One hypothesis either way: which reduction registered is key-independent.
 */
async function registerAny(query: PreparedQuery, reference: OrbFeatures, model: GeometricModel): Promise<{ homography: Mat3; inliers: number } | undefined> {
  const direct = await registerQuery(await query.orb(), reference, model);
  if (direct) return direct;
  for (const factor of CROP_REDUCTIONS) {
    const r = query.reduced(factor);
    if (!r) break;
    const reg = await registerQuery(await r.query.orb(), reference, model);
    if (reg) return { homography: multiply(reg.homography, r.fromParent), inliers: reg.inliers };
  }
  return undefined;
}

/**
 * Largest change of aspect ratio (as |ln|, here 1.82x) for which the whole query is tried as the
 * whole original resized: a copy squashed or stretched into a fixed box (a square thumbnail of a
 * 3:2 or 16:9 photo, `object-fit: fill`) keeps the full frame, which no scale fit can register.
 */
const MAX_ASPECT_CHANGE = 0.6;

function aspectMatches(qw: number, qh: number, W: number, H: number): boolean {
  return Math.abs(Math.log(qw / qh / (W / H))) < MAX_ASPECT_CHANGE;
}

/** Full analysis with p-values: for benchmarks and logs only, never for serialised outputs. */
export async function analyseDetection(
  query: Uint8Array | PreparedQuery,
  reference: DetectionReference,
  options: AnalyseOptions = {},
): Promise<DetectionAnalysis> {
  const [analysis] = await analyseKeys(query, reference, [reference.key], options);
  return analysis!;
}

/**
 * One analysis per key over hypotheses computed once: the registrations, warps and key-independent
 * features of `reference` (reduced original and grid) serve every key. Without `exhaustive`, stops
 * at the first hypothesis where any key is decided.
 */
async function analyseKeys(
  query: Uint8Array | PreparedQuery,
  reference: Omit<DetectionReference, 'key'>,
  keys: readonly Uint8Array[],
  options: AnalyseOptions,
): Promise<DetectionAnalysis[]> {
  const t0 = performance.now();
  for (const key of keys) assertMediaKey(key);
  const q = query instanceof PreparedQuery ? query : await prepareQuery(query, { maxPixels: options.maxPixels });
  const params: EmbeddingParams = reference.params;
  const { gridWidth: w0, gridHeight: h0, bandLow, bandHigh } = params;
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  const model = options.transforms ?? 'perspective';
  const original = reference.reduced ? reducedToFloat(reference.reduced) : undefined;
  const modes: DetectionMode[] = options.modes ?? [original ? 'informed' : 'blind'];
  if (!original && modes.includes('informed')) throw new Error('informed detection needs the reduced original');
  const ecc = options.ecc !== false && original !== undefined;
  const band = bandIndices(w0, h0, bandLow, bandHigh);
  const carriers = keys.map((key) => gaussianCarrier(key, band.length));
  const { width: qw, height: qh } = q.image;
  const wholeFrame = aspectMatches(q.image.originalWidth, q.image.originalHeight, params.gridWidth, params.gridHeight);
  // The family is fixed before looking at any statistic: resize hypothesis (when the aspect ratio
  // is within MAX_ASPECT_CHANGE of the original's), feature registration of the query and of its
  // mirror (when the reduced original exists), each optionally refined by ECC.
  const family = ((wholeFrame ? 1 : 0) + (original ? 2 : 0)) * (ecc ? 2 : 1);
  const logThreshold = Math.log10(threshold) - Math.log10(Math.max(1, family));
  const proxies = new ProxyCache(q);
  const features: HypothesisFeatures[] = [];
  const best: Partial<Record<DetectionMode, { log10p: number; score: number; name: string }>>[] = keys.map(() => ({}));
  let inliers: number | null = null;
  let tested = 0;

  const decided = (): boolean => best.some((b) => modes.every((m) => (b[m]?.log10p ?? 0) < logThreshold));
  const evaluate = (name: string, warped: Warped): void => {
    tested++;
    const coverage = warped.valid / (w0 * h0);
    const f: HypothesisFeatures = { name, coverage };
    features.push(f);
    if (warped.valid < 0.03 * w0 * h0) return; // nothing of the original in view
    for (const m of modes) {
      const x =
        m === 'informed'
          ? informedFeatures(original!, warped.values, warped.mask, w0, h0, band, bandHigh)
          : blindFeatures(warped.values, warped.mask, w0, h0, band, bandHigh);
      f[m] = x;
      for (const [k, carrier] of carriers.entries()) {
        const score = normalisedCorrelation(x, carrier);
        const log10p = log10PValue(score, band.length);
        const b = best[k]!;
        if (!b[m] || log10p < b[m]!.log10p) b[m] = { log10p, score, name };
      }
    }
  };
  const refine = async (name: string, base: Warped & { toGrid: Mat3 }, from = proxies): Promise<void> => {
    const correction = await refineEcc(original!, base.values, base.mask, w0, h0, model);
    if (correction) evaluate(`${name}+ecc`, from.warp(multiply(correction, base.toGrid), w0, h0));
    else tested++;
  };

  let resized: (Warped & { toGrid: Mat3 }) | undefined;
  if (wholeFrame) {
    resized = proxies.warp(resizeMap(qw, qh, w0, h0), w0, h0);
    evaluate('resize', resized);
  }
  let registered: (Warped & { toGrid: Mat3 }) | undefined;
  if (original && (options.exhaustive || !decided())) {
    const reg = await registerAny(q, await orbOfReduced(reference.reduced!), model);
    if (reg) {
      inliers = reg.inliers;
      registered = proxies.warp(reg.homography, w0, h0);
      evaluate('features', registered);
    } else tested++;
  }
  if (ecc && registered && (options.exhaustive || !decided())) await refine('features', registered);
  if (ecc && resized && (options.exhaustive || !decided())) await refine('resize', resized);
  // A mirrored copy: the flipped proxy registered like the query. Only when the straight
  // registration failed or was weak (a key-independent condition; the family counts it anyway).
  if (original && (options.exhaustive || (!decided() && (inliers ?? 0) < MIRROR_BELOW_INLIERS))) {
    const mirror = q.mirrored();
    const reg = await registerAny(mirror, await orbOfReduced(reference.reduced!), model);
    if (reg) {
      const mirrorProxies = new ProxyCache(mirror);
      const warped = mirrorProxies.warp(reg.homography, w0, h0);
      evaluate('mirror', warped);
      if (ecc && (options.exhaustive || !decided())) await refine('mirror', warped, mirrorProxies);
      inliers = Math.max(inliers ?? 0, reg.inliers);
    } else tested++;
  }

  const coverage = features.reduce((c, f) => Math.max(c, f.coverage), 0);
  const diagnostics = { informed: modes[0] === 'informed', hypotheses: family, tested, inliers, coverage, ms: performance.now() - t0 };
  return best.map((b) => {
    const outcomes: Partial<Record<DetectionMode, ModeOutcome>> = {};
    for (const m of modes) {
      const log10p = b[m] ? Math.min(0, b[m]!.log10p + Math.log10(Math.max(1, family))) : 0;
      outcomes[m] = { watermarked: log10p < Math.log10(threshold), log10p, score: b[m]?.score ?? 0, best: b[m]?.name };
    }
    return { family, features, outcomes, diagnostics };
  });
}

/** Is `query` a watermarked copy made with this registration's key? */
export async function detect(
  query: Uint8Array | PreparedQuery,
  reference: DetectionReference,
  options: DetectOptions = {},
): Promise<DetectionResult> {
  const analysis = await analyseDetection(query, reference, {
    transforms: options.transforms,
    threshold: options.threshold,
    ecc: options.ecc,
    maxPixels: options.maxPixels,
  });
  const outcome = Object.values(analysis.outcomes)[0];
  return { watermarked: outcome?.watermarked ?? false, diagnostics: analysis.diagnostics };
}

/**
 * log10 of the Bonferroni-corrected p-value of stored hypothesis features against another key:
 * false-positive studies reuse the features of one query for many keys.
 */
export function log10PValueForKey(features: readonly HypothesisFeatures[], family: number, key: Uint8Array, mode: DetectionMode): number {
  let min = 0;
  let carrier: Float64Array | undefined;
  for (const f of features) {
    const x = f[mode];
    if (!x) continue;
    carrier ??= gaussianCarrier(key, x.length);
    min = Math.min(min, log10PValue(normalisedCorrelation(x, carrier), x.length));
  }
  return Math.min(0, min + Math.log10(Math.max(1, family)));
}

/**
 * Which of several registrations marked `query`: one decision per reference, in order. References
 * that share a reduced original (the same object) and a grid, as the transactional copies of one
 * image do, share one registration of the query and one set of features; each key then costs a
 * correlation. Stops at the first hypothesis where a key is decided, so at most the leaked copy
 * (and any registration with the very same key) comes out watermarked.
 */
export async function detectAmong(
  query: Uint8Array | PreparedQuery,
  references: readonly DetectionReference[],
  options: DetectOptions = {},
): Promise<boolean[]> {
  const q = query instanceof PreparedQuery ? query : await prepareQuery(query, { maxPixels: options.maxPixels });
  const groups = new Map<unknown, Map<string, number[]>>();
  for (const [i, r] of references.entries()) {
    const p = r.params;
    const grid = [p.algorithm, p.gridWidth, p.gridHeight, p.bandLow, p.bandHigh].join(':');
    let byGrid = groups.get(r.reduced ?? null);
    if (!byGrid) groups.set(r.reduced ?? null, (byGrid = new Map()));
    byGrid.set(grid, [...(byGrid.get(grid) ?? []), i]);
  }
  const out = references.map(() => false);
  for (const byGrid of groups.values()) {
    for (const members of byGrid.values()) {
      const first = references[members[0]!]!;
      const analyses = await analyseKeys(q, first, members.map((i) => references[i]!.key), {
        transforms: options.transforms,
        threshold: options.threshold,
        ecc: options.ecc,
      });
      for (const [k, i] of members.entries()) out[i] = Object.values(analyses[k]!.outcomes)[0]?.watermarked ?? false;
    }
  }
  return out;
}
