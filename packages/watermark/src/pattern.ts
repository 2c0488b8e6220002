/**
 * The watermark pattern: the keyed carrier placed on the band of a canonical w0 x h0 DCT plane,
 * inverse-transformed, then bilinearly upsampled to full resolution one row at a time.
 */
import { bandIndices } from './band';
import { gaussianCarrier } from './carrier';
import { dctTwiddles, LowpassIdct } from './dct';
import { radix2Tables } from './fft';
import { Scratch } from './scratch';
import { lowpassPatternWasm } from './wasm-kernels';

/** What a canonical grid and band need besides the key: computed once per (grid, band), then reused. */
interface PatternPlan {
  band: Int32Array;
  idct: LowpassIdct;
}

/** Coefficient and output planes, shared by all plans (one pattern at a time: the code is synchronous). */
const buffers = new Scratch();

const plans = new Map<string, PatternPlan>();

function patternPlan(w0: number, h0: number, low: number, high: number): PatternPlan {
  const id = `${w0}x${h0}:${low}:${high}`;
  let p = plans.get(id);
  if (p) return p;
  const band = bandIndices(w0, h0, low, high);
  // Per coefficient row, the kx range the band occupies (rows are in increasing ky).
  let ky1 = 0;
  for (let i = 0; i < band.length; i++) ky1 = Math.max(ky1, Math.floor(band[i] / w0) + 1);
  const kxFrom = new Int32Array(ky1).fill(w0);
  const kxTo = new Int32Array(ky1);
  for (let i = 0; i < band.length; i++) {
    const ky = Math.floor(band[i] / w0);
    const kx = band[i] - ky * w0;
    if (kx < kxFrom[ky]) kxFrom[ky] = kx;
    if (kx + 1 > kxTo[ky]) kxTo[ky] = kx + 1;
  }
  for (let ky = 0; ky < ky1; ky++) if (kxTo[ky] === 0) kxFrom[ky] = 0;
  p = { band, idct: new LowpassIdct(w0, h0, kxFrom, kxTo) };
  // A plan is the band list and one cosine table (~0.3 MB at L = 512); a service sees a handful of
  // grid sizes (one per aspect ratio), so a small cache covers them with bounded memory.
  if (plans.size >= 8) plans.delete(plans.keys().next().value as string);
  plans.set(id, p);
  return p;
}

/** Canonical pattern with unit RMS, written to `out` (w0 * h0) when given. */
export function canonicalPattern(
  key: Uint8Array,
  w0: number,
  h0: number,
  low: number,
  high: number,
  out = new Float32Array(w0 * h0),
  /** Run the JavaScript even where the WebAssembly would (tests). */
  js = false,
): Float32Array {
  const { band, idct } = patternPlan(w0, h0, low, high);
  const g = gaussianCarrier(key, band.length);
  const coef = buffers.float64('coef', w0 * h0);
  coef.fill(0);
  for (let i = 0; i < band.length; i++) coef[band[i]] = g[i];
  // In WebAssembly where the engine has it (the same floats; a fresh process would run the JavaScript
  // cold, ~50 ms instead of ~5) when the FFT side is a power of two, as it is at the default size.
  const parts = idct.parts();
  const n = parts.rowsFirst ? h0 : w0;
  if (!js && (n & (n - 1)) === 0 && lowpassPatternWasm({ ...parts, ...dctTwiddles(n), ...radix2Tables(n) }, coef, out)) return out;
  const plane = idct.run(coef, buffers.float64('plane', w0 * h0));
  const ss = sumSquares(plane);
  scaleInto(out, plane, ss > 0 ? 1 / Math.sqrt(ss / plane.length) : 0);
  return out;
}

function sumSquares(a: Float64Array): number {
  let ss = 0;
  for (let i = 0; i < a.length; i++) ss += a[i] * a[i];
  return ss;
}

function scaleInto(out: Float32Array, a: Float64Array, s: number): void {
  for (let i = 0; i < a.length; i++) out[i] = a[i] * s;
}

/** Source index and weight of a pixel-centre-aligned linear resampling from n0 to n samples. */
function lerpTable(n0: number, n: number): { i0: Int32Array; f: Float32Array } {
  const i0 = new Int32Array(n);
  const f = new Float32Array(n);
  const s = n0 / n;
  for (let x = 0; x < n; x++) {
    let u = (x + 0.5) * s - 0.5;
    if (u < 0) u = 0;
    if (u > n0 - 1) u = n0 - 1;
    const k = Math.min(n0 - 2, Math.floor(u));
    i0[x] = Math.max(0, k);
    f[x] = n0 > 1 ? u - i0[x] : 0;
  }
  return { i0, f };
}

/**
 * Bilinear, pixel-centre-aligned upsampling of a small plane, one output row at a time. Hot loops
 * inline the horizontal step themselves (see `source` and `columns`) so that the interpolated value
 * is consumed where it is made instead of going through a full-width row buffer.
 */
export class PlaneUpsampler {
  /** Horizontal table: output x reads source[i0[x]] and source[i0[x] + 1] with weight f[x]. */
  readonly columns: { i0: Int32Array; f: Float32Array };
  private readonly rows: { i0: Int32Array; f: Float32Array };
  /** Vertically interpolated source row, with one spare copy of the last sample (a 1-wide plane). */
  private readonly tmp: Float32Array;

  constructor(
    private readonly p0: Float32Array,
    private readonly w0: number,
    private readonly h0: number,
    readonly width: number,
    readonly height: number,
  ) {
    this.columns = lerpTable(w0, width);
    this.rows = lerpTable(h0, height);
    this.tmp = new Float32Array(w0 + 1);
  }

  /**
   * The source row interpolated at output row y (length w0 + 1, reused between calls). Output x is
   * then fround(s[k] + f[x] * (s[k + 1] - s[k])) with k = i0[x], as `row` computes it.
   */
  source(y: number): Float32Array {
    const { p0, w0, h0, tmp } = this;
    const fy = this.rows.f[y];
    const a = this.rows.i0[y] * w0;
    const b = h0 > 1 ? a + w0 : a;
    for (let x = 0; x < w0; x++) tmp[x] = p0[a + x] + fy * (p0[b + x] - p0[a + x]);
    tmp[w0] = tmp[w0 - 1];
    return tmp;
  }

  /** The plane and both tables, for code that interpolates on its own (apply-rows.ts). */
  parts(): { q: Float32Array; w0: number; h0: number; colI0: Int32Array; colF: Float32Array; rowI0: Int32Array; rowF: Float32Array } {
    return { q: this.p0, w0: this.w0, h0: this.h0, colI0: this.columns.i0, colF: this.columns.f, rowI0: this.rows.i0, rowF: this.rows.f };
  }

  row(y: number, out: Float32Array): void {
    const s = this.source(y);
    const { i0, f } = this.columns;
    for (let x = 0; x < this.width; x++) {
      const k = i0[x];
      out[x] = s[k] + f[x] * (s[k + 1] - s[k]);
    }
  }
}
