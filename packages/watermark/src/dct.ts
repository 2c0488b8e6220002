/**
 * Orthonormal DCT-II and its inverse (DCT-III) through one complex FFT of the same length
 * (Makhoul's reordering), and their separable 2-D versions on row-major planes.
 */
import { fft } from './fft';

interface DctPlan {
  n: number;
  twRe: Float64Array; // cos(pi k / 2n)
  twIm: Float64Array; // -sin(pi k / 2n)
  re: Float64Array;
  im: Float64Array;
}

const plans = new Map<number, DctPlan>();

function plan(n: number): DctPlan {
  let p = plans.get(n);
  if (!p) {
    const twRe = new Float64Array(n);
    const twIm = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      twRe[k] = Math.cos((Math.PI * k) / (2 * n));
      twIm[k] = -Math.sin((Math.PI * k) / (2 * n));
    }
    p = { n, twRe, twIm, re: new Float64Array(n), im: new Float64Array(n) };
    plans.set(n, p);
  }
  return p;
}

/** The Makhoul twiddles of length n: cos(pi k / 2n) and -sin(pi k / 2n) (for the WebAssembly inverse DCT). */
export function dctTwiddles(n: number): { twRe: Float64Array; twIm: Float64Array } {
  return plan(n);
}

/** Orthonormal DCT-II of `src` (stride `stride`, length n) written to `dst` with the same stride. */
function dct1(src: Float64Array, offset: number, stride: number, n: number): void {
  const { twRe, twIm, re, im } = plan(n);
  const half = (n + 1) >> 1;
  for (let k = 0; k < half; k++) re[k] = src[offset + 2 * k * stride];
  for (let k = 0; k < n >> 1; k++) re[n - 1 - k] = src[offset + (2 * k + 1) * stride];
  im.fill(0);
  fft(re, im);
  const s0 = Math.sqrt(1 / n);
  const s = Math.sqrt(2 / n);
  for (let k = 0; k < n; k++) {
    const v = re[k] * twRe[k] - im[k] * twIm[k];
    src[offset + k * stride] = v * (k === 0 ? s0 : s);
  }
}

/** Orthonormal DCT-III (inverse of dct1), in place with a stride. */
function idct1(src: Float64Array, offset: number, stride: number, n: number): void {
  const { twRe, twIm, re, im } = plan(n);
  const c0 = Math.sqrt(n);
  const c = Math.sqrt(n / 2);
  // Z[k] = C[k] - i C[n-k] with C the unnormalised DCT-II; V[k] = Z[k] * e^{+i pi k / 2n}.
  for (let k = 0; k < n; k++) {
    const ck = src[offset + k * stride] * (k === 0 ? c0 : c);
    const cnk = k === 0 ? 0 : src[offset + (n - k) * stride] * c;
    // (ck - i cnk) * (twRe - i twIm) since twIm holds -sin
    re[k] = ck * twRe[k] - cnk * twIm[k];
    im[k] = -ck * twIm[k] - cnk * twRe[k];
  }
  fft(re, im, true);
  const half = (n + 1) >> 1;
  for (let k = 0; k < half; k++) src[offset + 2 * k * stride] = re[k] / n;
  for (let k = 0; k < n >> 1; k++) src[offset + (2 * k + 1) * stride] = re[n - 1 - k] / n;
}

/**
 * In-place orthonormal 2-D DCT-II of a w x h row-major plane. Only coefficient columns kx < `columns`
 * are completed (the others hold row transforms only): the band never needs high kx.
 */
export function dct2d(plane: Float64Array, w: number, h: number, columns = w): void {
  for (let y = 0; y < h; y++) dct1(plane, y * w, 1, w);
  for (let x = 0; x < Math.min(w, columns); x++) dct1(plane, x, w, h);
}

/**
 * In-place orthonormal 2-D inverse DCT (DCT-III). Coefficient columns kx >= `columns` must be zero
 * (a band-limited plane): their column transforms are skipped.
 */
export function idct2d(plane: Float64Array, w: number, h: number, columns = w): void {
  for (let x = 0; x < Math.min(w, columns); x++) idct1(plane, x, w, h);
  for (let y = 0; y < h; y++) idct1(plane, y * w, 1, w);
}


/*
 * The sparse axis of LowpassIdct, one output line (pair) per call: short functions called per line
 * are optimised by V8 after a few lines, where one long loop would run interpreted until on-stack
 * replacement on every first call of a process.
 */

/** Row ky (at offset o): out[o + x] = sum_kx basis[kx][x] coef[o + kx], x and w - 1 - x at once. */
function synthesiseRow(
  coef: Float64Array,
  out: Float64Array,
  basis: Float64Array,
  o: number,
  w: number,
  half: number,
  from: number,
  to: number,
  E: Float64Array,
  O: Float64Array,
): void {
  E.fill(0);
  O.fill(0);
  for (let kx = from; kx < to; kx++) {
    const c = coef[o + kx];
    const acc = kx & 1 ? O : E;
    const b = kx * w;
    for (let x = 0; x < half; x++) acc[x] += c * basis[b + x];
  }
  for (let x = 0; x < half; x++) {
    out[o + x] = E[x] + O[x];
    out[o + w - 1 - x] = E[x] - O[x];
  }
}

/** Output rows y and h - 1 - y, columns kx < kx1: sum_ky basis[ky][y] coef[ky][kx]. */
function synthesiseColumns(
  coef: Float64Array,
  out: Float64Array,
  basis: Float64Array,
  y: number,
  w: number,
  h: number,
  ky1: number,
  kx1: number,
  kxFrom: Int32Array,
  kxTo: Int32Array,
  E: Float64Array,
  O: Float64Array,
): void {
  E.fill(0);
  O.fill(0);
  for (let ky = 0; ky < ky1; ky++) {
    const c = basis[ky * h + y];
    const acc = ky & 1 ? O : E;
    const src = ky * w;
    const to = kxTo[ky];
    for (let kx = kxFrom[ky]; kx < to; kx++) acc[kx] += c * coef[src + kx];
  }
  const a = y * w;
  const b = (h - 1 - y) * w;
  for (let kx = 0; kx < kx1; kx++) {
    out[a + kx] = E[kx] + O[kx];
    out[b + kx] = E[kx] - O[kx];
  }
}

/**
 * Inverse 2-D DCT of a plane whose coefficients are zero outside the rectangle kx < kx1, ky < ky1,
 * with row ky holding nonzero coefficients only in [kxFrom[ky], kxTo[ky]) (a band's bounding box).
 * Same result as idct2d up to rounding, for a fraction of the cost: the first axis is a sparse
 * cosine-matrix product over the nonzero coefficients only (no Bluestein FFT of the odd canonical
 * side), the second axis a complex FFT that inverts two real lines at once (each line's spectrum is
 * Hermitian, so line a + i line b comes back as a + i b). The axis order is picked per grid so the
 * FFT side is the power-of-two one (landscape: columns first; portrait: rows first).
 */
export class LowpassIdct {
  readonly kx1: number;
  readonly ky1: number;
  private readonly rowsFirst: boolean;
  /** Orthonormal DCT-III matrix of the sparse axis, [k * n + j], k below the cut-off only. */
  private readonly basis: Float64Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly ta: Float64Array;
  private readonly tb: Float64Array;

  constructor(
    readonly w: number,
    readonly h: number,
    private readonly kxFrom: Int32Array,
    private readonly kxTo: Int32Array,
  ) {
    const ky1 = kxTo.length;
    let kx1 = 0;
    for (let ky = 0; ky < ky1; ky++) if (kxTo[ky] > kx1) kx1 = kxTo[ky];
    this.kx1 = kx1;
    this.ky1 = ky1;
    // Cost in multiply-adds of each order; the FFT side costs ~n log n (3 FFTs of 2n for Bluestein).
    const fftCost = (n: number): number => {
      if ((n & (n - 1)) === 0) return 2.5 * n * Math.log2(n) + 10 * n;
      let m = 1;
      while (m < 2 * n - 1) m <<= 1;
      return 7.5 * m * Math.log2(m) + 10 * n;
    };
    const columnsFirst = kx1 * h * ky1 + (h / 2) * fftCost(w);
    const rowsFirst = ky1 * w * kx1 + (w / 2) * fftCost(h);
    this.rowsFirst = rowsFirst < columnsFirst;
    const n = this.rowsFirst ? w : h;
    const k1 = this.rowsFirst ? kx1 : ky1;
    this.basis = new Float64Array(k1 * n);
    for (let k = 0; k < k1; k++) {
      const s = k === 0 ? Math.sqrt(1 / n) : Math.sqrt(2 / n);
      for (let j = 0; j < n; j++) this.basis[k * n + j] = s * Math.cos((Math.PI * (2 * j + 1) * k) / (2 * n));
    }
    const m = this.rowsFirst ? h : w;
    this.re = new Float64Array(m);
    this.im = new Float64Array(m);
    this.ta = new Float64Array(m);
    this.tb = new Float64Array(m);
  }

  /** What the WebAssembly version of `run` needs (wasm-kernels.ts lowpassPatternWasm). */
  parts(): { w: number; h: number; rowsFirst: boolean; kx1: number; ky1: number; kxFrom: Int32Array; kxTo: Int32Array; basis: Float64Array } {
    const { w, h, rowsFirst, kx1, ky1, kxFrom, kxTo, basis } = this;
    return { w, h, rowsFirst, kx1, ky1, kxFrom, kxTo, basis };
  }

  /** Writes the inverse transform of `coef` (w x h, row-major) into `out` (w x h, any contents) and returns it. */
  run(coef: Float64Array, out = new Float64Array(this.w * this.h)): Float64Array {
    const { w, h, kxFrom, kxTo, ky1, kx1, basis } = this;
    out.fill(0);
    // The sparse axis uses the basis symmetry cos(pi (2(n-1-j)+1) k / 2n) = (-1)^k cos(pi (2j+1) k / 2n):
    // even and odd k are summed apart over half the outputs, then out[j] = E + O, out[n-1-j] = E - O.
    if (this.rowsFirst) {
      // Rows ky < ky1: out[ky][x] = sum_kx basis[kx][x] coef[ky][kx].
      const half = (w + 1) >> 1;
      const E = new Float64Array(half);
      const O = new Float64Array(half);
      for (let ky = 0; ky < ky1; ky++) synthesiseRow(coef, out, basis, ky * w, w, half, kxFrom[ky], kxTo[ky], E, O);
      // Columns: length h, nonzero inputs ky < ky1, two at a time.
      for (let x = 0; x < w; x += 2) this.fftPair(out, x, x + 1 < w ? x + 1 : -1, w, h, ky1);
    } else {
      // Columns kx < kx1: out[y][kx] = sum_ky basis[ky][y] coef[ky][kx], one output row pair at a time.
      const half = (h + 1) >> 1;
      const E = new Float64Array(kx1);
      const O = new Float64Array(kx1);
      for (let y = 0; y < half; y++) synthesiseColumns(coef, out, basis, y, w, h, ky1, kx1, kxFrom, kxTo, E, O);
      for (let y = 0; y < h; y += 2) this.fftPair(out, y * w, y + 1 < h ? (y + 1) * w : -1, 1, w, kx1);
    }
    return out;
  }

  /**
   * Orthonormal DCT-III, in place, of the line at offset `a` (and of the one at `b` unless -1), both
   * with stride `stride` and length n: the Makhoul reordering of idct1, two lines per complex FFT.
   * Inputs k >= k1 are known to be zero and are not read (strided reads of zeros cost cache misses).
   */
  private fftPair(p: Float64Array, a: number, b: number, stride: number, n: number, k1: number): void {
    const { twRe, twIm } = plan(n);
    const { re, im, ta, tb } = this;
    const c0 = Math.sqrt(n);
    const c = Math.sqrt(n / 2);
    // Gather both lines contiguously (zeros past k1), scaled to the unnormalised DCT-II convention.
    for (let k = 0; k < k1; k++) {
      ta[k] = p[a + k * stride] * c;
      tb[k] = b >= 0 ? p[b + k * stride] * c : 0;
    }
    ta[0] *= c0 / c;
    tb[0] *= c0 / c;
    ta.fill(0, k1, n);
    tb.fill(0, k1, n);
    // V_a[k] = (ak - i a(n-k)) e^{i pi k / 2n} (twIm holds -sin), and the complex input is V_a + i V_b.
    re[0] = ta[0];
    im[0] = tb[0];
    for (let k = 1; k < n; k++) {
      const ak = ta[k];
      const ank = ta[n - k];
      const bk = tb[k];
      const bnk = tb[n - k];
      const cr = twRe[k];
      const ci = twIm[k];
      re[k] = ak * cr - ank * ci + bk * ci + bnk * cr;
      im[k] = -ak * ci - ank * cr + bk * cr - bnk * ci;
    }
    fft(re, im, true);
    const half = (n + 1) >> 1;
    const inv = 1 / n;
    for (let k = 0; k < half; k++) p[a + 2 * k * stride] = re[k] * inv;
    for (let k = 0; k < n >> 1; k++) p[a + (2 * k + 1) * stride] = re[n - 1 - k] * inv;
    if (b >= 0) {
      for (let k = 0; k < half; k++) p[b + 2 * k * stride] = im[k] * inv;
      for (let k = 0; k < n >> 1; k++) p[b + (2 * k + 1) * stride] = im[n - 1 - k] * inv;
    }
  }
}
