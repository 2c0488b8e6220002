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
  jpegLadder,
  lumaRow,
  probeImage,
  psnrOf,
  type ImageFormat,
  type RawImage,
} from '@filigrane/vision';
import { jndMask, maskBlurRadius, maskGrid, type RowSource } from './jnd';
import { assertMediaKey } from './key';
import { ALGORITHM_VERSION, canonicalGrid, DEFAULTS, type EmbeddingParams } from './params';
import { canonicalPattern, PlaneUpsampler } from './pattern';
import { pixelHash } from './pixel-hash';
import { Scratch } from './scratch';
import { floatToReduced, type Registration, type RegistrationMode } from './registration';

export interface EmbedOptions {
  /** Target PSNR in dB over the colour channels (default 44). */
  targetPsnr?: number;
  /** Canonical long side (default 512). */
  canonicalSize?: number;
  /** Transactional registration: no reduced copy. */
  transactional?: boolean;
  /** Refuse images with more pixels (default 40 MP). */
  maxPixels?: number;
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
  /** The watermarked image, same format and metadata as the input. */
  image: Buffer;
  format: ImageFormat;
}

/**
 * One pass over the rows: luminance reduced to the canonical grid (the reduced original) and to
 * the mask grid (JND input). Both are area averages; luminance and its prefix sums are computed
 * once per row and feed both reducers.
 */
/** prefix[x + 1] = row[0] + ... + row[x] (prefix[0] stays 0). */
function prefixSums(row: Float32Array, prefix: Float64Array, n: number): void {
  let s = 0;
  for (let x = 0; x < n; x++) {
    s += row[x];
    prefix[x + 1] = s;
  }
}

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
  const toCanonical =
    canonical && !full ? new AreaReducer(W, H, canonical.w0, canonical.h0, scratch.float32('canonical', canonical.w0 * canonical.h0)) : undefined;
  const toMask = wm === W && hm === H ? undefined : new AreaReducer(W, H, wm, hm, scratch.float32('maskLuma', wm * hm));
  const direct = full ? scratch.float32('canonical', W * H) : undefined;
  for (let y = 0; y < H; y++) {
    lumaRow(raw, y, row);
    if (direct) direct.set(row, y * W);
    if (!toCanonical && !toMask) continue;
    prefixSums(row, prefix, W);
    toCanonical?.pushPrefix(prefix);
    toMask?.pushPrefix(prefix);
  }
  return { canonical: toCanonical ? toCanonical.result() : direct, maskLuma: toMask?.result() };
}

/**
 * M * P on the mask grid. Both factors are smooth at that scale (the mask is blurred over a
 * canonical pixel, the pattern is band-limited), so upsampling the product once is as good as
 * multiplying two upsampled planes, at half the cost per full-resolution pixel. Computed in place over
 * the mask plane (a reused buffer, see scratch.ts).
 */
function shapedPlane(maskPlane: Float32Array, wm: number, hm: number, p0: Float32Array, w0: number, h0: number): Float32Array {
  const up = new PlaneUpsampler(p0, w0, h0, wm, hm);
  const out = maskPlane; // in place: the mask itself is not needed afterwards
  const row = scratch.float32('shapedRow', wm);
  for (let y = 0; y < hm; y++) {
    up.row(y, row);
    multiplyRow(out, maskPlane, row, y * wm, wm);
  }
  return out;
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
class ShapedHistogram {
  static readonly BINS = 1 << 13;
  readonly counts = new Uint32Array(ShapedHistogram.BINS);
  constructor(readonly bound: number) {}

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
  meanSquare(a: number, total: number, integer: boolean): number {
    const half = ShapedHistogram.BINS / 2;
    const step = (this.bound || 1) / (half - 1);
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
 * applyDelta for 8-bit RGB or RGBA, the usual case, with monomorphic byte arrays (the general loop
 * sees Uint8Array and Uint16Array and V8 then compiles slower element access). Same arithmetic.
 * Returns the sum of squared differences over the colour channels.
 */
function applyRgb8(data: Uint8Array, out: Uint8Array, W: number, H: number, channels: number, shaped: PlaneUpsampler, a: number): number {
  const { i0, f } = shaped.columns;
  let sse = 0;
  for (let y = 0; y < H; y++) sse += applyRowRgb8(data, out, y * W * channels, W, channels, shaped.source(y), i0, f, a);
  return sse;
}

/**
 * One row of applyRgb8 starting at sample p; returns its sum of squared differences. Every sample of
 * the row is written (alpha copied), so `out` needs no prior copy of the input.
 */
function applyRowRgb8(
  data: Uint8Array,
  out: Uint8Array,
  p: number,
  W: number,
  channels: number,
  s: Float32Array,
  i0: Int32Array,
  f: Float32Array,
  a: number,
): number {
  let sse = 0;
  const alpha = channels === 4;
  for (let x = 0; x < W; x++, p += channels) {
    if (alpha) out[p + 3] = data[p + 3];
    // The upsampled M * P, rounded to float32 exactly as a Float32Array row would hold it.
    const k = i0[x];
    const d = Math.round(a * Math.fround(s[k] + f[x] * (s[k + 1] - s[k])));
    const r0 = data[p], g0 = data[p + 1], b0 = data[p + 2];
    const r = r0 + d, g = g0 + d, b = b0 + d;
    if (r >= 0 && r <= 255 && g >= 0 && g <= 255 && b >= 0 && b <= 255) {
      out[p] = r;
      out[p + 1] = g;
      out[p + 2] = b;
      sse += 3 * d * d;
      continue;
    }
    for (let c = 0; c < 3; c++) {
      const v0 = data[p + c];
      let v = v0 + d;
      if (v < 0) v = 0;
      else if (v > 255) v = 255;
      out[p + c] = v;
      sse += (v - v0) * (v - v0);
    }
  }
  return sse;
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

/** Embeds into raw pixels; the input is not modified. */
export function embedRaw(raw: RawImage, key: Uint8Array, options: EmbedOptions = {}, format: ImageFormat | 'raw' = 'raw'): EmbedRawResult {
  assertMediaKey(key);
  const t0 = performance.now();
  let tStage = t0;
  const stage = (name: string): void => {
    const now = performance.now();
    lastEmbedStages[name] = now - tStage;
    tStage = now;
  };
  const targetPsnr = options.targetPsnr ?? DEFAULTS.targetPsnr;
  const L = options.canonicalSize ?? DEFAULTS.canonicalSize;
  const { width: W, height: H } = raw;
  const { gridWidth: w0, gridHeight: h0 } = canonicalGrid(W, H, L);
  const transactional = options.transactional === true;

  const { maskWidth: wm, maskHeight: hm } = maskGrid(W, H, L);
  // A transactional registration keeps no reduced copy: the canonical reduction is skipped.
  const planes = reducePlanes(raw, transactional ? undefined : { w0, h0 }, wm, hm);
  const reduced = planes.canonical ? floatToReduced(planes.canonical, w0, h0) : undefined;
  stage('reduce');
  const maskSource: RowSource = planes.maskLuma
    ? (y, out) => out.set(planes.maskLuma!.subarray(y * wm, (y + 1) * wm))
    : (y, out) => lumaRow(raw, y, out);
  const maskPlane = jndMask(wm, hm, maskSource, maskBlurRadius(wm, w0), DEFAULTS.laCap, scratch);
  stage('mask');
  const p0 = canonicalPattern(key, w0, h0, DEFAULTS.bandLow, DEFAULTS.bandHigh, scratch.float32('pattern', w0 * h0));
  stage('pattern');
  const q = shapedPlane(maskPlane, wm, hm, p0, w0, h0);
  const bound = maxAbs(q);
  // Bilinear interpolation never leaves the range of its samples: `bound` bounds every pixel.
  const shaped = new PlaneUpsampler(q, wm, hm, W, H);
  stage('shape');
  // The histogram samples every k-th full-resolution row, one for about every third mask-grid row:
  // the full-resolution rows are bilinear blends of mask rows, so their distribution is the full one
  // at a fraction of the cost (the histogram only seeds the gain: the apply pass measures the exact
  // PSNR and corrects). A fixed share of mask rows keeps the sample size about constant at 1-24 MP.
  const histogram = new ShapedHistogram(bound);
  const step = Math.max(2, Math.floor((3 * H) / hm));
  let sampled = 0;
  for (let y = Math.floor(step / 2); y < H; y += step) {
    histogram.addRow(shaped, y);
    sampled += W;
  }
  const mseTarget = (255 * 255) / Math.pow(10, targetPsnr / 10);
  stage('histogram');
  let alpha = solveGain(histogram, sampled, mseTarget, raw.depth);
  stage('gain');
  const out = raw.depth === 16 ? new Uint16Array(raw.data.length) : new Uint8Array(raw.data.length);
  let psnr = applyDelta(raw, out, shaped, alpha);
  let passes = 1;
  // The histogram's bins blur rounding boundaries slightly and it ignores clipping (which can leave the
  // PSNR well above the target): nudge the target until the measured PSNR is in [target, target + 0.1].
  let goal = mseTarget;
  for (let i = 0; i < 3 && alpha > 0 && (psnr < targetPsnr || psnr > targetPsnr + 0.1); i++) {
    goal *= Math.pow(10, (psnr - targetPsnr - 0.02) / 10);
    alpha = solveGain(histogram, sampled, goal, raw.depth);
    psnr = applyDelta(raw, out, shaped, alpha);
    passes++;
  }
  if (psnr < targetPsnr) {
    // Never ship below the target: fall back to a safe margin.
    alpha *= Math.pow(10, (psnr - targetPsnr - 0.05) / 20);
    psnr = applyDelta(raw, out, shaped, alpha);
    passes++;
  }
  stage('apply');
  lastEmbedStages.applyPasses = passes;
  const params: EmbeddingParams = {
    algorithm: ALGORITHM_VERSION,
    canonicalSize: L,
    gridWidth: w0,
    gridHeight: h0,
    bandLow: DEFAULTS.bandLow,
    bandHigh: DEFAULTS.bandHigh,
    laCap: DEFAULTS.laCap,
    targetPsnr,
    psnr,
  };
  const registration: Registration = {
    mode: (transactional ? 'transactional' : 'normal') as RegistrationMode,
    key: Buffer.from(key),
    pixelHash: pixelHash(raw),
    params,
    original: { width: W, height: H, format },
    reduced,
  };
  const ms = performance.now() - t0;
  return {
    raw: { ...raw, data: out },
    report: { psnr, embedPsnr: psnr, width: W, height: H, ms, totalMs: ms },
    registration,
  };
}

/** Largest raise of the internal target PSNR used to absorb the output codec's loss (dB). */
const MAX_CODEC_MARGIN = 2;
/** First internal target above the file target for JPEG outputs (typical re-quantisation loss, dB). */
const JPEG_START_MARGIN = 0.5;

/** Mean square error in 8-bit units for a PSNR in dB, and back. */
const mseOf = (psnr: number): number => (255 * 255) / Math.pow(10, psnr / 10);
const psnrOfMse = (mse: number): number => 10 * Math.log10((255 * 255) / mse);

/**
 * Decodes a JPEG, PNG or GIF, embeds, and re-encodes in the same format, colour space, subsampling,
 * quality, bit depth and metadata. The written file is decoded again and its PSNR against the
 * original's pixels is the one reported. When the codec's loss takes it below the target (JPEG
 * re-quantisation), the codec climbs jpegLadder while the codec alone costs more than a third of the
 * error budget, then the embedding is redone with an internal target that leaves room for the codec.
 * Palette outputs (GIF, palette PNG) are not corrected: their quantisation is not the mark's doing
 * and a weaker mark would not buy it back.
 */
export async function embed(input: Uint8Array, key: Uint8Array, options: EmbedOptions = {}): Promise<EmbedResult> {
  assertMediaKey(key);
  const t0 = performance.now();
  const limits = { maxPixels: options.maxPixels ?? DEFAULT_MAX_PIXELS };
  const info = await probeImage(input, limits);
  const raw = await decodeRaw(input, info, limits);
  const target = options.targetPsnr ?? DEFAULTS.targetPsnr;
  const correctable = info.format === 'jpeg' || (info.format === 'png' && !info.palette);
  const ladder = info.format === 'jpeg' ? jpegLadder(info) : [];
  let rung = 0;
  let internal = info.format === 'jpeg' ? target + JPEG_START_MARGIN : target;
  let embedMs = 0;
  const write = async (marked: RawImage): Promise<{ image: Buffer; psnr: number }> => {
    const image = await encodeLike(marked, input, info, ladder.length ? { jpeg: ladder[rung] } : {});
    return { image, psnr: psnrOf(raw, await decodeRaw(image, info, limits)) };
  };
  for (let attempt = 0; ; attempt++) {
    const result = embedRaw(raw, key, { ...options, targetPsnr: internal }, info.format);
    embedMs += result.report.ms;
    let file = await write(result.raw);
    // Error the codec adds on top of the mark (the two are nearly uncorrelated).
    const codecMse = (): number => Math.max(0, mseOf(file.psnr) - mseOf(result.report.embedPsnr));
    while (correctable && file.psnr < target && rung + 1 < ladder.length && codecMse() > mseOf(target) / 3) {
      rung++;
      file = await write(result.raw);
    }
    if (!correctable || file.psnr >= target || attempt >= 2 || internal >= target + MAX_CODEC_MARGIN) {
      return {
        ...result,
        image: file.image,
        format: info.format,
        report: { ...result.report, psnr: file.psnr, ms: embedMs, totalMs: performance.now() - t0 },
      };
    }
    const room = mseOf(target) - 1.05 * codecMse();
    const needed = room > 0 ? psnrOfMse(room) + 0.05 : Infinity;
    internal = Math.min(target + MAX_CODEC_MARGIN, Math.max(needed, internal + target - file.psnr + 0.05));
  }
}
