/**
 * Exact false-alarm probability of the hypercone test. If the carrier u is uniform on S^{n-1} and
 * independent of the feature vector x, c = cos(x, u) satisfies c^2 ~ Beta(1/2, (n-1)/2) whatever x is,
 * so P(C >= c) = 1/2 I_{1-c^2}((n-1)/2, 1/2) for c >= 0. Everything is computed in the log domain:
 * detections reach p = 1e-3000, far below what a double can hold.
 */

const LN10 = Math.LN10;
const HALF_LN_2PI = 0.5 * Math.log(2 * Math.PI);

/** ln Gamma(x) for x > 0: recurrence up to x >= 10, then Stirling's series (error < 1e-15). */
export function logGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`logGamma(${x})`);
  let shift = 0;
  while (x < 10) {
    shift -= Math.log(x);
    x += 1;
  }
  const inv = 1 / x;
  const inv2 = inv * inv;
  const series =
    inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 * (1 / 1188)))));
  return shift + (x - 0.5) * Math.log(x) - x + HALF_LN_2PI + series;
}

export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/**
 * ln I_x(a, b) by the power series I_x(a,b) = x^a (1-x)^b / (a B(a,b)) * sum_k (a+b)_k / (a+1)_k x^k.
 * Converges for 0 <= x < 1; needs about 40 / (1 - x) terms, so callers use it where x is not close to 1.
 */
export function logIncompleteBetaSeries(x: number, a: number, b: number): number {
  if (x <= 0) return -Infinity;
  if (x >= 1) return 0;
  let term = 1;
  let sum = 1;
  for (let k = 0; k < 10_000_000; k++) {
    term *= ((a + b + k) / (a + 1 + k)) * x;
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return a * Math.log(x) + b * Math.log1p(-x) - Math.log(a) - logBeta(a, b) + Math.log(sum);
}

/**
 * log10 of the one-sided p-value P(C >= c) for the normalised correlation c of dimension n.
 * Near c = 0 (the usual null case) the complement series in c^2 is both fast and accurate; for
 * larger c the direct series in 1 - c^2 gives tiny p-values without cancellation.
 */
export function log10PValue(c: number, n: number): number {
  if (!(n >= 2)) throw new RangeError('dimension must be >= 2');
  if (Number.isNaN(c)) return 0;
  const a = (n - 1) / 2;
  const c2 = Math.min(1, c * c);
  if (c2 >= 1) return c > 0 ? -Infinity : 0;
  if (a * c2 <= 10) {
    // P(|C| >= |c|) = 1 - I_{c^2}(1/2, a), computed with the series in c^2.
    const twoSided = -Math.expm1(logIncompleteBetaSeries(c2, 0.5, a));
    const p = c >= 0 ? twoSided / 2 : 1 - twoSided / 2;
    return Math.log10(Math.max(p, Number.MIN_VALUE));
  }
  const lnHalfI = Math.log(0.5) + logIncompleteBetaSeries(1 - c2, a, 0.5);
  if (c >= 0) return lnHalfI / LN10;
  return Math.log10(-Math.expm1(lnHalfI));
}

/** Normalised correlation <x, u> / (|x| |u|); 0 when either vector is null. */
export function normalisedCorrelation(x: ArrayLike<number>, u: ArrayLike<number>): number {
  let xu = 0;
  let xx = 0;
  let uu = 0;
  for (let i = 0; i < x.length; i++) {
    xu += x[i] * u[i];
    xx += x[i] * x[i];
    uu += u[i] * u[i];
  }
  return xx > 0 && uu > 0 ? xu / Math.sqrt(xx * uu) : 0;
}

/** Bonferroni over m hypotheses: log10 min(1, m * min p). */
export function bonferroniLog10(log10Ps: readonly number[], m: number): number {
  if (log10Ps.length === 0) return 0;
  return Math.min(0, Math.log10(m) + Math.min(...log10Ps));
}
