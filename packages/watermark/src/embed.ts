/**
 * Embedding: delta Y = alpha * M * P added equally to R, G and B (luminance only, no colour drift),
 * with M the blurred JND mask and P the upsampled keyed pattern; alpha solved so the PSNR lands
 * just above the target. Passes over rows: reduce (canonical copy + mask grid), energy of M * P, apply.
 */
import { performance } from 'node:perf_hooks';
import {
  AreaReducer,
  DEFAULT_MAX_PIXELS,
  decodeRaw,
  encodeLike,
  ImageTooLargeError,
  jpegLadder,
  type ImageInfo,
  type JpegEncodeSettings,
  lumaRow,
  probeImage,
  psnrOf,
  type ImageFormat,
  type RawImage,
} from '@filigrane/vision';
import { applyBand, histogramSquaresWasm, kernelImage, lumaAreaReducer, lumaPrefixRows, shapedHistogramWasm, shapePlaneWasm, sseRgb8 } from './wasm-kernels';
import { jndMask, maskBlurRadius, maskGrid, type RowSource } from './jnd';
import { assertMediaKey } from './key';
import { ALGORITHM_VERSION, canonicalGrid, DEFAULTS, type EmbeddingParams } from './params';
import { canonicalPattern, PlaneUpsampler } from './pattern';
import { IdleWork, type Slice } from './idle-work';
import { pixelHash, pixelHasher } from './pixel-hash';
import { Scratch } from './scratch';
import { floatToReduced, type ReducedOriginal, type Registration, type RegistrationMode } from './registration';

export interface EmbedOptions {
  /** Target PSNR in dB over the colour channels (default 44). */
  targetPsnr?: number;
  /** Canonical long side (default 512). */
  canonicalSize?: number;
  /** Transactional registration: no reduced copy. */
  transactional?: boolean;
  /** Refuse images with more pixels (default 40 MP). */
  maxPixels?: number;
  /**
   * Seals the registration (e.g. `r => encodeLmk(r, accountKey)`): embed() calls it while libvips codes
   * and decodes the output, as soon as the registration is final, and returns its value as `sealed`.
   */
  seal?: (registration: Registration) => Buffer;
  /**
   * The input's `probeImage()` result, when the caller has already read the header (the tool checks
   * it before anything else): embed() then skips its own probe (~10 ms on a large JPEG). Its size is
   * still held to `maxPixels`; it must describe `input`.
   */
  info?: ImageInfo;
  /**
   * A full garbage collection (the tool passes V8's `gc`): embed() calls it once the marked copy is
   * coded and let go, while the written file is decoded, so that the copy's memory (3 bytes a pixel) is
   * returned before the decoded file's is taken. Without it the copy is freed whenever V8 collects.
   */
  collectGarbage?: () => void;
}

export interface EmbedReport {
  /**
   * PSNR in dB of the watermarked pixels against the original's. For embed(): of the written file,
   * decoded, against the original file's decoded pixels (what the user receives); for embedRaw(): of
   * the watermarked pixels, before any codec.
   */
  psnr: number;
  /** PSNR of the watermarked pixels before the output codec (equal to psnr for embedRaw). */
  embedPsnr: number;
  width: number;
  height: number;
  /** Embedding time, decoding and encoding excluded. */
  ms: number;
  /** Decode + embed + encode (equal to ms for embedRaw). */
  totalMs: number;
}

export interface EmbedRawResult {
  raw: RawImage;
  report: EmbedReport;
  registration: Registration;
}

export interface EmbedResult extends EmbedRawResult {
  /** The written file's pixels, decoded (what the user receives; the PSNR is measured on them). */
  raw: RawImage;
  /** The watermarked image, same format and metadata as the input. */
  image: Buffer;
  format: ImageFormat;
  /** options.seal's value for `registration` (when options.seal was given). */
  sealed?: Buffer;
}

/** prefix[x + 1] = row[0] + ... + row[x] (prefix[0] stays 0). */
function prefixSums(row: Float32Array, prefix: Float64Array, n: number): void {
  let s = 0;
  for (let x = 0; x < n; x++) {
    s += row[x];
    prefix[x + 1] = s;
  }
}

/**
 * One pass over the rows: luminance reduced to the canonical grid (the reduced original) and to
 * the mask grid (JND input). Both are area averages; luminance and its prefix sums are computed
 * once per row and feed both reducers.
 */
function reducePlanes(
  raw: RawImage,
  canonical: { w0: number; h0: number } | undefined,
  wm: number,
  hm: number,
): { canonical?: Float32Array; maskLuma?: Float32Array } {
  const { width: W, height: H } = raw;
  const row = scratch.float32('row', W);
  const prefix = scratch.float64('prefix', W + 1);
  prefix[0] = 0;
  const full = canonical !== undefined && canonical.w0 === W && canonical.h0 === H;
  const wantCanonical = canonical !== undefined && !full;
  const wantMask = wm !== W || hm !== H;
  if (!full && raw.depth === 8 && raw.channels >= 3 && (wantCanonical || wantMask)) {
    // The usual case, all in WebAssembly when the engine has it: luminance, prefix sums, both reductions.
    const grids = [
      ...(wantCanonical ? [{ width: canonical.w0, height: canonical.h0, out: scratch.float32('canonical', canonical.w0 * canonical.h0) }] : []),
      ...(wantMask ? [{ width: wm, height: hm, out: scratch.float32('maskLuma', wm * hm) }] : []),
    ];
    const reducer = lumaAreaReducer(W, H, raw.channels, grids);
    if (reducer) {
      reducer.push(raw.data as Uint8Array, H);
      const planes = reducer.results();
      return { canonical: wantCanonical ? planes[0] : undefined, maskLuma: wantMask ? planes[planes.length - 1] : undefined };
    }
  }
  const toCanonical = wantCanonical ? new AreaReducer(W, H, canonical.w0, canonical.h0, scratch.float32('canonical', canonical.w0 * canonical.h0)) : undefined;
  const toMask = wantMask ? new AreaReducer(W, H, wm, hm, scratch.float32('maskLuma', wm * hm)) : undefined;
  const direct = full ? scratch.float32('canonical', W * H) : undefined;
  const fused = !direct && raw.depth === 8 && raw.channels >= 3 && (toCanonical !== undefined || toMask !== undefined);
  if (fused) {
    // The usual case: luminance and its prefix sums in one pass (WebAssembly), feeding both reducers.
    lumaPrefixRows(raw.data as Uint8Array, W, H, raw.channels, (p) => {
      toCanonical?.pushPrefix(p);
      toMask?.pushPrefix(p);
    });
  } else {
    for (let y = 0; y < H; y++) {
      lumaRow(raw, y, row);
      if (direct) direct.set(row, y * W);
      if (!toCanonical && !toMask) continue;
      prefixSums(row, prefix, W);
      toCanonical?.pushPrefix(prefix);
      toMask?.pushPrefix(prefix);
    }
  }
  return { canonical: toCanonical ? toCanonical.result() : direct, maskLuma: toMask?.result() };
}

/**
 * M * P on the mask grid, and its largest |value|. Both factors are smooth at that scale (the mask is
 * blurred over a canonical pixel, the pattern is band-limited), so upsampling the product once is as good
 * as multiplying two upsampled planes, at half the cost per full-resolution pixel. A new array (the plan
 * may outlive this call); the mask plane may be overwritten. In WebAssembly when the engine has it (it
 * runs once per embedding, so a fresh process would run the JavaScript cold), else `shapedPlaneJs`: the
 * same floats either way.
 */
export function shapedPlane(maskPlane: Float32Array, wm: number, hm: number, p0: Float32Array, w0: number, h0: number): { q: Float32Array; bound: number } {
  const fast = shapePlaneWasm(maskPlane, wm, hm, new PlaneUpsampler(p0, w0, h0, wm, hm).parts());
  return fast ? { q: fast.plane, bound: fast.bound } : shapedPlaneJs(maskPlane, wm, hm, p0, w0, h0);
}

/** The JavaScript definition of shapedPlane, computed in place over the mask plane then copied. */
export function shapedPlaneJs(maskPlane: Float32Array, wm: number, hm: number, p0: Float32Array, w0: number, h0: number): { q: Float32Array; bound: number } {
  const up = new PlaneUpsampler(p0, w0, h0, wm, hm);
  const row = scratch.float32('shapedRow', wm);
  for (let y = 0; y < hm; y++) {
    up.row(y, row);
    multiplyRow(maskPlane, maskPlane, row, y * wm, wm);
  }
  const q = maskPlane.slice(0, wm * hm);
  return { q, bound: maxAbs(q) };
}

/** out[o + x] = mask[o + x] * row[x]: one row per call so V8 optimises it early (see jnd.ts). */
function multiplyRow(out: Float32Array, mask: Float32Array, row: Float32Array, o: number, n: number): void {
  for (let x = 0; x < n; x++) out[o + x] = mask[o + x] * row[x];
}

/** Largest |v| over a plane. */
function maxAbs(q: Float32Array): number {
  let bound = 0;
  for (let i = 0; i < q.length; i++) {
    const v = q[i] < 0 ? -q[i] : q[i];
    if (v > bound) bound = v;
  }
  return bound;
}

/**
 * Histogram of M * P over all pixels: the PSNR after rounding can then be predicted for any gain
 * without another pass over the image (the added value is round(alpha * m) on every colour channel).
 */
export class ShapedHistogram {
  static readonly BINS = 1 << 13;
  readonly counts = new Uint32Array(ShapedHistogram.BINS);
  constructor(readonly bound: number) {}

  /**
   * Adds full-resolution rows y0, y0 + step, ... of `shaped`; returns the number of pixels added. In
   * WebAssembly when the engine has it, else with addRow: the same counts either way.
   */
  addRows(shaped: PlaneUpsampler, y0: number, step: number, js = false): number {
    const half = ShapedHistogram.BINS / 2;
    const k = (half - 1) / (this.bound || 1);
    const rows = js ? undefined : shapedHistogramWasm(shaped.parts(), shaped.width, shaped.height, y0, step, k, this.counts);
    if (rows !== undefined) return rows * shaped.width;
    let sampled = 0;
    for (let y = y0; y < shaped.height; y += step) {
      this.addRow(shaped, y);
      sampled += shaped.width;
    }
    return sampled;
  }

  /** Adds full-resolution row y of `shaped` (upsampled inline, as applyDelta does). */
  addRow(shaped: PlaneUpsampler, y: number): void {
    const half = ShapedHistogram.BINS / 2;
    const k = (half - 1) / (this.bound || 1);
    const counts = this.counts;
    const s = shaped.source(y);
    const { i0, f } = shaped.columns;
    for (let x = 0; x < shaped.width; x++) {
      const j = i0[x];
      counts[half + Math.round(Math.fround(s[j] + f[x] * (s[j + 1] - s[j])) * k)]++;
    }
  }

  /** Mean square of the rounded delta, in output units, for gain `a` (clipping ignored). */
  meanSquare(a: number, total: number, integer: boolean, js = false): number {
    const half = ShapedHistogram.BINS / 2;
    const step = (this.bound || 1) / (half - 1);
    // In WebAssembly where the engine has it (the same sum): the gain search calls this ~50 times per
    // solve, on a fresh process's cold JavaScript.
    const fast = js ? undefined : histogramSquaresWasm(this.counts, a, step, integer);
    if (fast !== undefined) return fast / total;
    let ss = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const c = this.counts[i];
      if (c === 0) continue;
      const d = a * (i - half) * step;
      const e = integer ? Math.round(d) : d;
      ss += c * e * e;
    }
    return ss / total;
  }
}

/** Smallest-error gain whose predicted MSE (in 8-bit units) is at most `mseTarget`, by bisection. */
function solveGain(h: ShapedHistogram, total: number, mseTarget: number, depth: 8 | 16): number {
  const scale = depth === 16 ? 257 : 1;
  const mse = (alpha: number): number => h.meanSquare(alpha * scale, total, true) / (scale * scale);
  let lo = 0;
  let hi = 1;
  while (mse(hi) < mseTarget && hi < 1e6) hi *= 2;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (mse(mid) <= mseTarget) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * applyDelta for 8-bit RGB or RGBA, the usual case, in WebAssembly (wasm-kernels.ts). Same arithmetic.
 * Returns the sum of squared differences over the colour channels.
 */
function applyRgb8(data: Uint8Array, out: Uint8Array, W: number, H: number, channels: number, shaped: PlaneUpsampler, a: number): number {
  return applyBand(data, out, { ...shaped.parts(), W, channels, a }, 0, H);
}

/** Writes original + round(alpha * M * P) into `out` (colour channels only); returns the PSNR in dB. */
function applyDelta(raw: RawImage, out: Uint8Array | Uint16Array, shaped: PlaneUpsampler, alpha: number): number {
  const { data, channels, width: W, height: H } = raw;
  if (raw.depth === 8 && channels >= 3) {
    const sse = applyRgb8(data as Uint8Array, out as Uint8Array, W, H, channels, shaped, alpha);
    const mse = sse / (W * H * 3);
    return mse > 0 ? 10 * Math.log10((255 * 255) / mse) : Infinity;
  }
  const colour = channels >= 3 ? 3 : 1;
  const scale = raw.depth === 16 ? 257 : 1;
  const max = raw.depth === 16 ? 65535 : 255;
  const a = alpha * scale;
  const { i0, f } = shaped.columns;
  let sse = 0;
  out.set(data);
  for (let y = 0, p = 0; y < H; y++) {
    const s = shaped.source(y);
    for (let x = 0; x < W; x++, p += channels) {
      // The upsampled M * P, rounded to float32 exactly as a Float32Array row would hold it.
      const k = i0[x];
      const mp = Math.fround(s[k] + f[x] * (s[k + 1] - s[k]));
      // Samples are integers, so round(v + d) = v + round(d): one rounding per pixel.
      const d = Math.round(a * mp);
      if (d === 0) continue;
      if (colour === 3) {
        const r0 = data[p], g0 = data[p + 1], b0 = data[p + 2];
        const r = r0 + d, g = g0 + d, b = b0 + d;
        if (r >= 0 && r <= max && g >= 0 && g <= max && b >= 0 && b <= max) {
          out[p] = r;
          out[p + 1] = g;
          out[p + 2] = b;
          sse += 3 * d * d;
          continue;
        }
      }
      for (let c = 0; c < colour; c++) {
        const v0 = data[p + c];
        let v = v0 + d;
        if (v < 0) v = 0;
        else if (v > max) v = max;
        out[p + c] = v;
        sse += (v - v0) * (v - v0);
      }
    }
  }
  const mse = sse / (scale * scale) / (W * H * colour);
  return mse > 0 ? 10 * Math.log10((255 * 255) / mse) : Infinity;
}

/** Intermediate planes reused between calls (see scratch.ts); never part of a result. */
const scratch = new Scratch();

/** Milliseconds spent in each stage of the last embedRaw call, and its number of apply passes (benchmarks and profiling only). */
export const lastEmbedStages: Record<string, number> = {};

/** When each step of the last embed() call ended, in ms from its start (benchmarks and profiling only). */
export const lastEmbedTimeline: [string, number][] = [];

function mark(step: string, t0: number): void {
  lastEmbedTimeline.push([step, Math.round((performance.now() - t0) * 10) / 10]);
}

/**
 * Everything an embedding needs before its gain is chosen: the shaped plane M * P, its histogram
 * and the reduced original. It owns its arrays (none from `scratch`), so it survives an await and
 * the gain can be solved again for another internal target without redoing the analysis.
 */
interface EmbedPlan {
  shaped: PlaneUpsampler;
  histogram: ShapedHistogram;
  sampled: number;
  reduced?: ReducedOriginal;
  /** The reduced original is still to be made from the full-resolution pixels (see canonicalJob). */
  canonicalPending: boolean;
  canonicalSize: number;
  w0: number;
  h0: number;
}

function stageTimer(): (name: string) => void {
  let t = performance.now();
  return (name) => {
    const now = performance.now();
    lastEmbedStages[name] = now - t;
    t = now;
  };
}

/** The keyed canonical pattern of a W x H image (key and size only: it can be made before decoding). */
function patternFor(key: Uint8Array, W: number, H: number, L: number, out?: Float32Array<ArrayBuffer>): Float32Array {
  const { gridWidth: w0, gridHeight: h0 } = canonicalGrid(W, H, L);
  return canonicalPattern(key, w0, h0, DEFAULTS.bandLow, DEFAULTS.bandHigh, out ?? new Float32Array(w0 * h0));
}

/**
 * The plan of an embedding into a W x H image. The mask comes from `maskInput`: the image itself, or
 * a shrunk decode of it (decodeRaw's `shrink`) at least as large as the mask grid, which lets the plan
 * run beside the full decode; the reduced original is then left for canonicalJob.
 */
function planEmbed(size: { width: number; height: number }, key: Uint8Array, options: EmbedOptions, maskInput: RawImage, pattern?: Float32Array): EmbedPlan {
  const stage = stageTimer();
  const L = options.canonicalSize ?? DEFAULTS.canonicalSize;
  const { width: W, height: H } = size;
  const { gridWidth: w0, gridHeight: h0 } = canonicalGrid(W, H, L);
  const { maskWidth: wm, maskHeight: hm } = maskGrid(W, H, L);
  const full = maskInput.width === W && maskInput.height === H;
  // A transactional registration keeps no reduced copy: the canonical reduction is skipped.
  const wantCanonical = options.transactional !== true;
  const planes = reducePlanes(maskInput, wantCanonical && full ? { w0, h0 } : undefined, wm, hm);
  const reduced = planes.canonical ? floatToReduced(planes.canonical, w0, h0) : undefined;
  stage('reduce');
  const maskSource: RowSource = planes.maskLuma
    ? (y, out) => out.set(planes.maskLuma!.subarray(y * wm, (y + 1) * wm))
    : (y, out) => lumaRow(maskInput, y, out);
  const maskPlane = jndMask(wm, hm, maskSource, maskBlurRadius(wm, w0), DEFAULTS.laCap, scratch);
  stage('mask');
  const p0 = pattern ?? patternFor(key, W, H, L, scratch.float32('pattern', w0 * h0));
  stage('pattern');
  const { q, bound } = shapedPlane(maskPlane, wm, hm, p0, w0, h0);
  // Bilinear interpolation never leaves the range of its samples: `bound` bounds every pixel.
  const shaped = new PlaneUpsampler(q, wm, hm, W, H);
  stage('shape');
  // The histogram samples every k-th full-resolution row, one for about every third mask-grid row:
  // the full-resolution rows are bilinear blends of mask rows, so their distribution is the full one
  // at a fraction of the cost (the histogram only seeds the gain: the apply pass measures the exact
  // PSNR and corrects). A fixed share of mask rows keeps the sample size about constant at 1-24 MP.
  const histogram = new ShapedHistogram(bound);
  const step = Math.max(2, Math.floor((3 * H) / hm));
  const sampled = histogram.addRows(shaped, Math.floor(step / 2), step);
  stage('histogram');
  return { shaped, histogram, sampled, reduced, canonicalPending: wantCanonical && !full, canonicalSize: L, w0, h0 };
}

/** Rows of the reduced original's pass per slice of idle work (~2 ms at 5640 pixels a row). */
const CANONICAL_SLICE_ROWS = 120;

/**
 * The reduced original of a plan made from a shrunk decode, from the full-resolution pixels, in slices
 * (idle-work.ts): each call reduces the next rows; true once the reduced original is made (at once when
 * there is nothing to do). Same sums in the same order, so the same reduced original as one pass.
 */
function canonicalJob(plan: EmbedPlan, raw: RawImage): Slice {
  if (!plan.canonicalPending) return () => true;
  const { width: W, height: H, channels } = raw;
  const done = (canonical: Float32Array): true => {
    plan.reduced = floatToReduced(canonical, plan.w0, plan.h0);
    plan.canonicalPending = false;
    return true;
  };
  if (raw.depth !== 8 || channels < 3 || (plan.w0 === W && plan.h0 === H)) {
    // A mask grid of the image's own size: no mask reduction, the canonical one only.
    return () => done(reducePlanes(raw, { w0: plan.w0, h0: plan.h0 }, W, H).canonical!);
  }
  const data = raw.data as Uint8Array;
  const rowBytes = W * channels;
  // In WebAssembly when the engine has it (lumaAreaReducer: the same floats as AreaReducer's).
  const fast = lumaAreaReducer(W, H, channels, [{ width: plan.w0, height: plan.h0 }]);
  const reducer = fast ? undefined : new AreaReducer(W, H, plan.w0, plan.h0, new Float32Array(plan.w0 * plan.h0));
  let y = 0;
  return () => {
    const end = Math.min(H, y + CANONICAL_SLICE_ROWS);
    const rows = data.subarray(y * rowBytes, end * rowBytes);
    if (fast) fast.push(rows, end - y);
    else lumaPrefixRows(rows, W, end - y, channels, (p) => reducer!.pushPrefix(p));
    y = end;
    return y === H && done(fast ? fast.results()[0] : reducer!.result());
  };
}

/**
 * The shrink (2, 4 or 8) at which libjpeg can decode a JPEG for its mask: the largest whose image
 * still covers the mask grid. Undefined when the mask grid is too close to full size to gain from it,
 * for a progressive JPEG (libjpeg reads all its scans and holds all its coefficients whatever the
 * scale: 445 ms against 500 for the full decode at 16.7 MP, and another 100 MB), or for other formats.
 */
function maskShrink(info: ImageInfo, canonicalSize: number): 2 | 4 | 8 | undefined {
  if (info.format !== 'jpeg' || info.depth !== 8 || info.progressive || info.width * info.height < SHRUNK_MASK_MIN_PIXELS) return undefined;
  const { maskWidth: wm, maskHeight: hm } = maskGrid(info.width, info.height, canonicalSize);
  for (const s of [8, 4, 2] as const) {
    if (Math.ceil(info.width / s) >= wm && Math.ceil(info.height / s) >= hm) return s;
  }
  return undefined;
}

interface Applied {
  out: Uint8Array | Uint16Array;
  psnr: number;
  passes: number;
}

/**
 * The gain search of an apply pass: yields each gain to apply and receives the PSNR it measured,
 * returns the final PSNR and pass count. Driven by applyPlan. A PSNR in [floor, target + 0.1] is final.
 */
function* gainSteps(plan: EmbedPlan, depth: 8 | 16, targetPsnr: number, floor = targetPsnr): Generator<number, { psnr: number; passes: number }, number> {
  const { histogram, sampled } = plan;
  const mseTarget = (255 * 255) / Math.pow(10, targetPsnr / 10);
  let alpha = solveGain(histogram, sampled, mseTarget, depth);
  let psnr = yield alpha;
  let passes = 1;
  // The histogram's bins blur rounding boundaries slightly and it ignores clipping (which can leave the
  // PSNR well above the target): nudge the target until the measured PSNR is in [floor, target + 0.1].
  let goal = mseTarget;
  for (let i = 0; i < 3 && alpha > 0 && (psnr < floor || psnr > targetPsnr + 0.1); i++) {
    goal *= Math.pow(10, (psnr - targetPsnr - 0.02) / 10);
    alpha = solveGain(histogram, sampled, goal, depth);
    psnr = yield alpha;
    passes++;
  }
  if (psnr < floor) {
    // Never ship below the floor: fall back to a safe margin.
    alpha *= Math.pow(10, (psnr - targetPsnr - 0.05) / 20);
    psnr = yield alpha;
    passes++;
  }
  return { psnr, passes };
}

/**
 * Solves the gain for `targetPsnr` and writes the marked pixels into `out` (a new array when absent);
 * a measured PSNR down to `floor` is kept.
 */
function applyPlan(plan: EmbedPlan, raw: RawImage, targetPsnr: number, out?: Uint8Array | Uint16Array, floor = targetPsnr): Applied {
  const stage = stageTimer();
  const target = out ?? (raw.depth === 16 ? new Uint16Array(raw.data.length) : new Uint8Array(raw.data.length));
  const steps = gainSteps(plan, raw.depth, targetPsnr, floor);
  let step = steps.next();
  while (!step.done) step = steps.next(applyDelta(raw, target, plan.shaped, step.value));
  stage('apply');
  lastEmbedStages.applyPasses = step.value.passes;
  return { out: target, psnr: step.value.psnr, passes: step.value.passes };
}

function registrationOf(
  plan: EmbedPlan,
  raw: RawImage,
  key: Uint8Array,
  options: EmbedOptions,
  targetPsnr: number,
  psnr: number,
  format: ImageFormat | 'raw',
  hash: Buffer,
): Registration {
  const params: EmbeddingParams = {
    algorithm: ALGORITHM_VERSION,
    canonicalSize: plan.canonicalSize,
    gridWidth: plan.w0,
    gridHeight: plan.h0,
    bandLow: DEFAULTS.bandLow,
    bandHigh: DEFAULTS.bandHigh,
    laCap: DEFAULTS.laCap,
    targetPsnr,
    psnr,
  };
  return {
    mode: (options.transactional === true ? 'transactional' : 'normal') as RegistrationMode,
    key: Buffer.from(key),
    pixelHash: hash,
    params,
    original: { width: raw.width, height: raw.height, format },
    reduced: plan.reduced,
  };
}

/** Embeds into raw pixels; the input is not modified. */
export function embedRaw(raw: RawImage, key: Uint8Array, options: EmbedOptions = {}, format: ImageFormat | 'raw' = 'raw'): EmbedRawResult {
  assertMediaKey(key);
  const t0 = performance.now();
  const targetPsnr = options.targetPsnr ?? DEFAULTS.targetPsnr;
  const plan = planEmbed(raw, key, options, raw);
  const { out, psnr } = applyPlan(plan, raw, targetPsnr);
  const registration = registrationOf(plan, raw, key, options, targetPsnr, psnr, format, pixelHash(raw));
  const ms = performance.now() - t0;
  return {
    raw: { ...raw, data: out },
    report: { psnr, embedPsnr: psnr, width: raw.width, height: raw.height, ms, totalMs: ms },
    registration,
  };
}

/** Bytes of the marked copy mapped in per slice of idle work (~3 ms). */
const TOUCH_SLICE_BYTES = 4 << 20;

/**
 * Writes zeros over `buffer` in slices (idle-work.ts): the first write to fresh memory costs a page fault
 * per 4 KB, ~45 ms for a 54 MB image here, which the apply pass would otherwise pay all at once.
 */
export function touchJob(buffer: Uint8Array): { slice: Slice; stop(): void } {
  let done = 0;
  let target: Uint8Array | undefined = buffer;
  return {
    slice: () => {
      if (!target) return true;
      const end = Math.min(target.length, done + TOUCH_SLICE_BYTES);
      target.fill(0, done, end);
      done = end;
      return done === target.length;
    },
    // Later slices write nothing (the buffer then holds the marked image), and the job no longer holds it.
    stop: () => (target = undefined),
  };
}

/** Bytes of the pixel hash per slice of idle work (~3 ms of SHA-256). */
const HASH_SLICE_BYTES = 2 << 20;

/** Below this many pixels a JPEG's mask is made from its full decode (a shrunk one would not pay for itself). */
const SHRUNK_MASK_MIN_PIXELS = 4_000_000;

/** Largest raise of the internal target PSNR used to absorb the output codec's loss (dB). */
const MAX_CODEC_MARGIN = 2;
/** Internal target above the file target for outputs whose codec loss was not estimated (dB). */
const JPEG_START_MARGIN = 0.5;
/**
 * How far below an internal target (itself 0.05 dB above what the codec estimate asks) the marked
 * pixels may land and be kept (dB): the gain's first pass misses by ~0.01 dB on one file in five, and
 * a second pass costs ~55 ms at 16 MP. The written file's PSNR is measured and corrected anyway.
 */
const GAIN_SLACK = 0.025;

/** Mean square error in 8-bit units for a PSNR in dB, and back. */
const mseOf = (psnr: number): number => (255 * 255) / Math.pow(10, psnr / 10);
const psnrOfMse = (mse: number): number => 10 * Math.log10((255 * 255) / mse);

/** The codec-loss sample: bands this tall (a multiple of every JPEG MCU height), this many, this many edge rows left out. */
const SAMPLE_BAND_ROWS = 48;
const SAMPLE_BANDS = 8;
const SAMPLE_EDGE_ROWS = 8;

/**
 * The rows codecLoss reads from an image of H rows: the first row of each band (MCU-aligned, spread over
 * the image), their height, and the rows left out at each band edge. The whole image when it is short.
 */
export function codecSampleBands(H: number): { starts: number[]; rows: number; edge: number } {
  if (H < 2 * SAMPLE_BANDS * SAMPLE_BAND_ROWS) return { starts: [0], rows: H, edge: 0 };
  const rows = SAMPLE_BAND_ROWS;
  const starts = Array.from({ length: SAMPLE_BANDS }, (_, i) => {
    const centre = ((i + 0.5) * H) / SAMPLE_BANDS;
    return Math.min(Math.floor((H - rows) / 16) * 16, Math.max(0, Math.round((centre - rows / 2) / 16) * 16));
  });
  return { starts, rows, edge: SAMPLE_EDGE_ROWS };
}

/**
 * Mean square error (8-bit units) that the output codec adds to the marked pixels, measured on
 * bands of rows spread over the image, marked with gain `alpha` and encoded with `settings` (the
 * whole image when it is small). Quantisation noise is nearly uncorrelated with the mark, so file
 * MSE = mark MSE + this: one estimate up front lets the first embedding aim at the file target
 * instead of re-embedding after a short file. It must be measured on marked pixels: re-encoding an
 * unmarked JPEG with its own tables is nearly lossless. Band starts are MCU-aligned, and rows next
 * to a band edge (where the decoder's chroma upsampling sees the next band) are not counted.
 * 8-bit RGB(A) only (undefined otherwise).
 */
async function codecLoss(
  plan: EmbedPlan,
  raw: RawImage,
  input: Uint8Array,
  info: ImageInfo,
  settings: JpegEncodeSettings,
  alpha: number,
  idle: IdleWork,
): Promise<number | undefined> {
  const { width: W, height: H, channels } = raw;
  if (raw.depth !== 8 || channels < 3) return undefined;
  const { starts, rows: bandRows, edge } = codecSampleBands(H);
  const bands = starts.length;
  const rowBytes = W * channels;
  const data = raw.data as Uint8Array;
  const marked = new Uint8Array(bands * bandRows * rowBytes);
  const parts = { ...plan.shaped.parts(), W, channels, a: alpha };
  for (let i = 0; i < bands; i++) {
    const y0 = starts[i]!;
    const o = i * bandRows * rowBytes;
    const original = data.subarray(y0 * rowBytes, (y0 + bandRows) * rowBytes);
    marked.set(original, o);
    const band = marked.subarray(o, o + bandRows * rowBytes);
    applyBand(original, band, parts, y0, y0 + bandRows);
  }
  const sampleInfo: ImageInfo = { ...info, height: bands * bandRows };
  const sample: RawImage = { ...raw, data: marked, height: bands * bandRows };
  const coded = await idle.during(encodeLike(sample, input, sampleInfo, { jpeg: settings }));
  const decoded = (await idle.during(decodeRaw(coded, sampleInfo))).data as Uint8Array;
  let sse = 0;
  let n = 0;
  for (let i = 0; i < bands; i++) {
    const from = (i * bandRows + edge) * rowBytes;
    const to = ((i + 1) * bandRows - edge) * rowBytes;
    sse += sseRgb8(marked.subarray(from, to), decoded.subarray(from, to), channels);
    n += 3 * W * (bandRows - 2 * edge);
  }
  return sse / n;
}

/**
 * Decodes a JPEG, PNG or GIF, embeds, and re-encodes in the same format, colour space, subsampling,
 * quality, bit depth and metadata. The written file is decoded again and its PSNR against the
 * original's pixels is the one reported. For JPEG, the re-encoding loss is estimated on a sample of
 * the original first: while the codec alone costs more than a third of the error budget the codec
 * climbs jpegLadder, and the embedding aims at what is left, so one pass is usually final. When the
 * file still lands below the target, the embedding is redone with the room the codec really left.
 * Palette outputs (GIF, palette PNG) are not corrected: their quantisation is not the mark's doing
 * and a weaker mark would not buy it back.
 */
export async function embed(input: Uint8Array, key: Uint8Array, options: EmbedOptions = {}): Promise<EmbedResult> {
  assertMediaKey(key);
  const t0 = performance.now();
  lastEmbedTimeline.length = 0;
  const limits = { maxPixels: options.maxPixels ?? DEFAULT_MAX_PIXELS };
  const info = options.info ? checkedInfo(options.info, limits.maxPixels) : await probeImage(input, limits);
  mark('probe', t0);
  return embedWith(input, key, options, info, limits, t0);
}

/** A caller's probe result, held to this call's pixel limit as probeImage would hold it. */
function checkedInfo(info: ImageInfo, maxPixels: number): ImageInfo {
  const pixels = info.width * info.height;
  if (pixels > maxPixels) throw new ImageTooLargeError(`${info.width}x${info.height} exceeds the limit of ${maxPixels} pixels`, pixels, maxPixels);
  return info;
}

async function embedWith(
  input: Uint8Array,
  key: Uint8Array,
  options: EmbedOptions,
  info: ImageInfo,
  limits: { maxPixels: number },
  t0: number,
): Promise<EmbedResult> {
  // libvips decodes on its own thread while this one makes the keyed pattern (key and size only). A
  // large JPEG is also decoded shrunk on another libvips thread, and the plan made from that while the
  // full decode goes on; the reduced original is then made later, while libvips encodes and verifies.
  const canonicalSize = options.canonicalSize ?? DEFAULTS.canonicalSize;
  const shrink = maskShrink(info, canonicalSize);
  const decoding = decodeRaw(input, info, limits);
  const shrunk = shrink ? decodeRaw(input, info, limits, shrink) : undefined;
  // Settled at once: when the shrunk decode fails, the full decode's error is the one reported.
  shrunk?.catch(() => undefined);
  let embedMs = 0;
  let t = performance.now();
  const pattern = patternFor(key, info.width, info.height, canonicalSize);
  embedMs += performance.now() - t;
  mark('pattern', t0);
  const target = options.targetPsnr ?? DEFAULTS.targetPsnr;
  const correctable = info.format === 'jpeg' || (info.format === 'png' && !info.palette);
  const ladder = info.format === 'jpeg' ? jpegLadder(info) : [];
  let rung = 0;
  let plan: EmbedPlan | undefined;
  if (shrunk) {
    const small = await shrunk.catch(() => undefined);
    if (small) {
      mark('shrunkDecode', t0);
      t = performance.now();
      plan = planEmbed(info, key, options, small, pattern);
      embedMs += performance.now() - t;
      mark('plan', t0);
    }
  }
  const raw = await decoding;
  mark('decode', t0);
  if (!plan) {
    t = performance.now();
    plan = planEmbed(raw, key, options, raw, pattern);
    embedMs += performance.now() - t;
    mark('plan', t0);
  }
  // The pixel hash and the reduced original wait for no one: they fill this thread's waits for libvips.
  const idle = new IdleWork();
  // First of all, the marked copy's memory is mapped in (see touchJob), while libvips codes the sample.
  // In the memory of a WebAssembly instance of its own when the apply pass runs there: it then marks it in place.
  let out: Uint8Array | Uint16Array | undefined =
    raw.depth === 8 && correctable && ladder.length
      ? ((raw.channels >= 3 ? kernelImage(raw.data.length, { ...plan.shaped.parts(), W: raw.width, channels: raw.channels }) : undefined) ??
        new Uint8Array(raw.data.length))
      : undefined;
  const touch = out && touchJob(out as Uint8Array);
  if (touch) idle.add(touch.slice);
  const hasher = pixelHasher(raw);
  idle.add(() => hasher.update(HASH_SLICE_BYTES));
  // Its tables are made in its first slice too, while libvips works.
  let canonical: Slice | undefined;
  idle.add(() => (canonical ??= canonicalJob(plan!, raw))());
  let digest: Buffer | undefined;
  const registrationFor = (internalTarget: number, psnr: number): Registration =>
    registrationOf(plan!, raw, key, options, internalTarget, psnr, info.format, (digest ??= hasher.digest()));
  // The registration and its seal, made after the jobs above (the registration needs both).
  let sealed: { registration: Registration; value?: Buffer } | undefined;
  let sealMs = 0;
  let internal = info.format === 'jpeg' ? target + JPEG_START_MARGIN : target;
  if (correctable && ladder.length) {
    const alpha = solveGain(plan.histogram, plan.sampled, mseOf(internal), raw.depth);
    let mse = await codecLoss(plan, raw, input, info, ladder[0], alpha, idle);
    while (mse !== undefined && mse > mseOf(target) / 3 && rung + 1 < ladder.length) {
      rung++;
      mse = await codecLoss(plan, raw, input, info, ladder[rung], alpha, idle);
    }
    if (mse !== undefined) {
      lastEmbedStages.codecMse = mse;
      const room = mseOf(target) - 1.1 * mse;
      internal = Math.min(target + MAX_CODEC_MARGIN, room > 0 ? Math.max(target, psnrOfMse(room)) + 0.05 : Infinity);
    }
    mark('codecSample', t0);
  }
  const floorOf = (internal: number): number => Math.max(target, internal - GAIN_SLACK);
  /**
   * Codes the marked copy, lets it go, and decodes the written file beside the original. The copy's
   * memory is returned (options.collectGarbage) before the decoded file's is taken, so the peak holds
   * two full-size images besides the codec's, not three. A later pass that needs it marks it again.
   */
  const write = async (): Promise<{ image: Buffer; written: RawImage; psnr: number }> => {
    const image = await idle.during(encodeLike({ ...raw, data: out! }, input, info, ladder.length ? { jpeg: ladder[rung] } : {}));
    mark('encode', t0);
    out = undefined;
    const decoding = decodeRaw(image, info, limits);
    options.collectGarbage?.();
    const written = await idle.during(decoding);
    mark('verifyDecode', t0);
    return { image, written, psnr: psnrOf(raw, written, sseRgb8) };
  };
  /** An apply pass into `out`, its only holder (see write); its PSNR. The same gain marks the same copy. */
  const apply = (internal: number): number => {
    const pass = applyPlan(plan!, raw, internal, out, floorOf(internal));
    out = pass.out;
    return pass.psnr;
  };
  // What is not mapped in yet is left to the apply pass: the job must not write the marked copy after this.
  touch?.stop();
  for (let attempt = 0; ; attempt++) {
    t = performance.now();
    const gain = { internal, psnr: apply(internal) };
    embedMs += performance.now() - t;
    mark('apply', t0);
    idle.add(() => {
      const registration = registrationFor(gain.internal, gain.psnr);
      const t = performance.now();
      sealed = { registration, value: options.seal?.(registration) };
      sealMs += performance.now() - t;
      return true;
    });
    let file = await write();
    mark('verifyPsnr', t0);
    // Error the codec adds on top of the mark (the two are nearly uncorrelated).
    const codecMse = (): number => Math.max(0, mseOf(file.psnr) - mseOf(gain.psnr));
    while (correctable && file.psnr < target && rung + 1 < ladder.length && codecMse() > mseOf(target) / 3) {
      rung++;
      // write() let the copy go: mark it again.
      apply(internal);
      file = await write();
    }
    if (!correctable || file.psnr >= target || attempt >= 2 || internal >= target + MAX_CODEC_MARGIN) {
      idle.finish();
      // The slices' time, the caller's sealing left out.
      embedMs += idle.ms - sealMs;
      mark('idleWork', t0);
      // The last seal job was this attempt's (each attempt adds one and finish() ran them all).
      const { registration, value } = sealed!;
      const ms = embedMs;
      return {
        raw: file.written,
        registration,
        sealed: value,
        image: file.image,
        format: info.format,
        report: { psnr: file.psnr, embedPsnr: gain.psnr, width: raw.width, height: raw.height, ms, totalMs: performance.now() - t0 },
      };
    }
    const room = mseOf(target) - 1.05 * codecMse();
    const needed = room > 0 ? psnrOfMse(room) + 0.05 : Infinity;
    internal = Math.min(target + MAX_CODEC_MARGIN, Math.max(needed, internal + target - file.psnr + 0.05));
  }
}
