import test from 'ava';
import { randomBytes } from 'node:crypto';
import { log10PValue, logGamma, normalisedCorrelation } from '../src/p-value';
import { gaussianCarrier } from '../src/carrier';

test('logGamma matches known values', (t) => {
  t.true(Math.abs(logGamma(0.5) - Math.log(Math.sqrt(Math.PI))) < 1e-13);
  t.true(Math.abs(logGamma(1) - 0) < 1e-13);
  t.true(Math.abs(logGamma(10) - Math.log(362880)) < 1e-12);
  t.true(Math.abs(logGamma(100.5) - 361.4355404677776) < 1e-9);
});

test('n = 3: one coordinate of a uniform unit vector is uniform, so P(C >= c) = (1 - c) / 2', (t) => {
  for (const c of [-0.9, -0.3, 0, 0.1, 0.5, 0.99]) {
    const expected = (1 - c) / 2;
    t.true(Math.abs(10 ** log10PValue(c, 3) - expected) < 1e-9, `c=${c}`);
  }
});

test('p-value agrees with a Monte-Carlo estimate (n = 50, tau = 0.3)', (t) => {
  // Uniform carriers on S^49 against a fixed x: the fraction with cos >= 0.3.
  const n = 50;
  const x = new Float64Array(n).fill(0);
  x[0] = 1;
  const draws = 40_000;
  let hits = 0;
  for (let i = 0; i < draws; i++) {
    const u = gaussianCarrier(randomBytes(32), n);
    if (normalisedCorrelation(x, u) >= 0.3) hits++;
  }
  const p = 10 ** log10PValue(0.3, n);
  const se = Math.sqrt((p * (1 - p)) / draws);
  t.true(p > 0.015 && p < 0.0175, `formula ${p}`);
  t.true(Math.abs(hits / draws - p) < 4 * se, `MC ${hits / draws} vs ${p}`);
});

test('tiny p-values do not underflow and follow the Gaussian tail for large n', (t) => {
  const n = 10_000;
  // c = z / sqrt(n): p ~ Phi(-z) for moderate z
  const l5 = log10PValue(5 / Math.sqrt(n), n);
  t.true(Math.abs(l5 - Math.log10(2.8665e-7)) < 0.05, `${l5}`);
  const big = log10PValue(0.6, n);
  t.true(Number.isFinite(big) && big < -900, `${big}`);
  t.true(log10PValue(0.61, n) < big, 'monotone');
  t.is(log10PValue(0, n).toFixed(6), Math.log10(0.5).toFixed(6));
  // the two series agree where they meet (a c^2 = 10)
  const c = Math.sqrt(10 / ((n - 1) / 2));
  t.true(Math.abs(log10PValue(c * 0.9999, n) - log10PValue(c * 1.0001, n)) < 0.01);
});

test('negative correlations give p > 1/2', (t) => {
  t.true(10 ** log10PValue(-0.05, 1000) > 0.5);
  t.true(10 ** log10PValue(-0.5, 1000) > 0.999999);
});
