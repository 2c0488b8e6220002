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

