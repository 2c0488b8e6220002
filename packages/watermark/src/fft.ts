/**
 * Complex FFT of any length: iterative radix-2 for powers of two, Bluestein's chirp-z for the rest
 * (canonical grids have arbitrary sizes such as 512 x 383). Plans are cached per length.
 */

interface Radix2Plan {
  n: number;
  rev: Uint32Array;
  cos: Float64Array;
  sin: Float64Array;
}

const radix2Plans = new Map<number, Radix2Plan>();

function radix2Plan(n: number): Radix2Plan {
  let plan = radix2Plans.get(n);
  if (plan) return plan;
  const bits = Math.log2(n);
  const rev = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
    rev[i] = r;
  }
  const cos = new Float64Array(n / 2);
  const sin = new Float64Array(n / 2);
  for (let i = 0; i < n / 2; i++) {
    cos[i] = Math.cos((2 * Math.PI * i) / n);
    sin[i] = -Math.sin((2 * Math.PI * i) / n);
  }
  plan = { n, rev, cos, sin };
  radix2Plans.set(n, plan);
  return plan;
}

/** The radix-2 tables of a power-of-two length n (for the WebAssembly inverse DCT, wasm-kernels.ts). */
export function radix2Tables(n: number): { rev: Uint32Array; cos: Float64Array; sin: Float64Array } {
  return radix2Plan(n);
}

/** In-place forward FFT (e^{-2 pi i jk/n}) of a power-of-two length; `inverse` flips the sign (no 1/n). */
function fftRadix2(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  const { rev, cos, sin } = radix2Plan(n);
  for (let i = 0; i < n; i++) {
    const j = rev[i];
    if (j > i) {
      let t = re[i]; re[i] = re[j]; re[j] = t;
      t = im[i]; im[i] = im[j]; im[j] = t;
    }
  }
  const sign = inverse ? -1 : 1;
  // Size-2 stage: twiddle 1, no multiplications.
  for (let a = 0; a + 1 < n; a += 2) {
    const tr = re[a + 1];
    const ti = im[a + 1];
    re[a + 1] = re[a] - tr; im[a + 1] = im[a] - ti;
    re[a] += tr; im[a] += ti;
  }
  for (let size = 4; size <= n; size <<= 1) {
    const half = size >> 1;
    const step = n / size;
    // Twiddle outermost: it is loaded once per stage and k instead of once per butterfly.
    for (let k = 0; k < half; k++) {
      const wr = cos[k * step];
      const wi = sign * sin[k * step];
      for (let a = k; a < n; a += size) {
        const b = a + half;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr; im[b] = im[a] - ti;
        re[a] += tr; im[a] += ti;
      }
    }
  }
}

interface BluesteinPlan {
  m: number;
  chirpRe: Float64Array;
  chirpIm: Float64Array;
  /** FFT of the conjugate chirp filter, length m. */
  filterRe: Float64Array;
  filterIm: Float64Array;
  /** Scratch buffers of length m (plans are per length and JS is single-threaded). */
  ar: Float64Array;
  ai: Float64Array;
}

const bluesteinPlans = new Map<number, BluesteinPlan>();

function bluesteinPlan(n: number): BluesteinPlan {
  let plan = bluesteinPlans.get(n);
  if (plan) return plan;
  let m = 1;
  while (m < 2 * n - 1) m <<= 1;
  const chirpRe = new Float64Array(n);
  const chirpIm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    // k^2 mod 2n keeps the angle small and exact for large k.
    const angle = (Math.PI * ((k * k) % (2 * n))) / n;
    chirpRe[k] = Math.cos(angle);
    chirpIm[k] = -Math.sin(angle);
  }
  const filterRe = new Float64Array(m);
  const filterIm = new Float64Array(m);
  filterRe[0] = chirpRe[0];
  filterIm[0] = -chirpIm[0];
  for (let k = 1; k < n; k++) {
    filterRe[k] = filterRe[m - k] = chirpRe[k];
    filterIm[k] = filterIm[m - k] = -chirpIm[k];
  }
  fftRadix2(filterRe, filterIm, false);
  plan = { m, chirpRe, chirpIm, filterRe, filterIm, ar: new Float64Array(m), ai: new Float64Array(m) };
  bluesteinPlans.set(n, plan);
  return plan;
}

/** In-place FFT of any length; `inverse` computes the unnormalised inverse transform. */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (n <= 1) return;
  if ((n & (n - 1)) === 0) {
    fftRadix2(re, im, inverse);
    return;
  }
  // Inverse via conjugation: ifft(x) = conj(fft(conj(x))).
  if (inverse) for (let i = 0; i < n; i++) im[i] = -im[i];
  const { m, chirpRe, chirpIm, filterRe, filterIm, ar, ai } = bluesteinPlan(n);
  ar.fill(0);
  ai.fill(0);
  for (let k = 0; k < n; k++) {
    ar[k] = re[k] * chirpRe[k] - im[k] * chirpIm[k];
    ai[k] = re[k] * chirpIm[k] + im[k] * chirpRe[k];
  }
  fftRadix2(ar, ai, false);
  for (let k = 0; k < m; k++) {
    const r = ar[k] * filterRe[k] - ai[k] * filterIm[k];
    ai[k] = ar[k] * filterIm[k] + ai[k] * filterRe[k];
    ar[k] = r;
  }
  fftRadix2(ar, ai, true);
  for (let k = 0; k < n; k++) {
    const r = ar[k] / m;
    const i = ai[k] / m;
    re[k] = r * chirpRe[k] - i * chirpIm[k];
    im[k] = r * chirpIm[k] + i * chirpRe[k];
  }
  if (inverse) for (let i = 0; i < n; i++) im[i] = -im[i];
}
