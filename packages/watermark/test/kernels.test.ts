/**
 * The fast embedding kernels against straightforward references: the band-limited inverse DCT and
 * canonical pattern against the full idct2d, the row-kernel JND against the formula evaluated pixel by
 * pixel, and the 8-bit apply path against its definition (same delta on R, G and B; exact PSNR).
 */
import test from 'ava';
import { bandIndices } from '../src/band';
import { gaussianCarrier } from '../src/carrier';
import { idct2d, LowpassIdct } from '../src/dct';
import { embedRaw, generateKey } from '../src/index';
import { jndMask } from '../src/jnd';
import { canonicalPattern } from '../src/pattern';
import { Scratch } from '../src/scratch';
import { syntheticPixels } from './fixtures';

/** The canonical pattern as first written: carrier on the band, full inverse DCT, unit RMS. */
function referencePattern(key: Uint8Array, w: number, h: number): Float64Array {
  const band = bandIndices(w, h, 0.02, 0.12);
  const g = gaussianCarrier(key, band.length);
  const plane = new Float64Array(w * h);
  for (let i = 0; i < band.length; i++) plane[band[i]] = g[i];
  idct2d(plane, w, h);
  let ss = 0;
  for (const v of plane) ss += v * v;
  const s = 1 / Math.sqrt(ss / plane.length);
  return plane.map((v) => v * s);
}

for (const [w, h] of [[512, 383], [383, 512], [512, 512], [259, 194], [64, 48], [37, 23], [7, 5], [3, 512]]) {
  test(`canonical pattern equals the full inverse DCT (${w}x${h})`, (t) => {
    const key = generateKey();
    const ref = referencePattern(key, w, h);
    const got = canonicalPattern(key, w, h, 0.02, 0.12);
    let worst = 0;
    for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(got[i] - ref[i]));
    t.true(worst < 1e-5, `max abs diff ${worst}`);
    // The cached plan leaves no coefficient behind: a second key gives its own pattern.
    const key2 = generateKey();
    const again = canonicalPattern(key2, w, h, 0.02, 0.12);
    const ref2 = referencePattern(key2, w, h);
    for (let i = 0; i < ref2.length; i += 7) worst = Math.max(worst, Math.abs(again[i] - ref2[i]));
    t.true(worst < 1e-5, `second key: ${worst}`);
  });
}

test('LowpassIdct inverts any plane supported on its rectangle, both axis orders', (t) => {
  for (const [w, h, kx1, ky1] of [[40, 24, 9, 5], [24, 40, 5, 9], [32, 17, 32, 17], [31, 16, 3, 16]]) {
    const coef = new Float64Array(w * h);
    const from = new Int32Array(ky1);
    const to = new Int32Array(ky1).fill(kx1);
    for (let ky = 0; ky < ky1; ky++) for (let kx = 0; kx < kx1; kx++) coef[ky * w + kx] = Math.sin(ky * 3.1 + kx * 0.7);
    const ref = coef.slice();
    idct2d(ref, w, h);
    const got = new LowpassIdct(w, h, from, to).run(coef);
    let worst = 0;
    for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(got[i] - ref[i]));
    t.true(worst < 1e-9, `${w}x${h}: ${worst}`);
  }
});

/** The blurred JND evaluated pixel by pixel from the formula in jnd.ts (edges replicated, blur clipped). */
function referenceJnd(Y: Float32Array, w: number, h: number, blur: number, laCap: number): Float64Array {
  const at = (x: number, y: number): number => Y[Math.min(h - 1, Math.max(0, y)) * w + Math.min(w - 1, Math.max(0, x))];
  const j = new Float64Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let bg = 0;
      for (let dy = -2; dy <= 2; dy++)
        for (let dx = -2; dx <= 2; dx++) {
          const ring = Math.max(Math.abs(dx), Math.abs(dy));
          bg += (ring === 2 ? 1 : ring === 1 ? 2 : 0) * at(x + dx, y + dy);
        }
      bg /= 32;
      const la = Math.min(laCap, bg <= 127 ? 17 * (1 - Math.sqrt(bg / 127)) + 3 : (3 / 128) * (bg - 127) + 3);
      const gx = at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1) - at(x - 1, y - 1) - 2 * at(x - 1, y) - at(x - 1, y + 1);
      const gy = at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1) - at(x - 1, y - 1) - 2 * at(x, y - 1) - at(x + 1, y - 1);
      const g = Math.hypot(gx, gy);
      const cm = (0.117 * 16 * Math.pow(g, 2.4)) / (g * g + 26 * 26);
      j[y * w + x] = la + cm - 0.3 * Math.min(la, cm);
    }
  const out = new Float64Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let yy = Math.max(0, y - blur); yy <= Math.min(h - 1, y + blur); yy++)
        for (let xx = Math.max(0, x - blur); xx <= Math.min(w - 1, x + blur); xx++) {
          s += j[yy * w + xx];
          n++;
        }
      out[y * w + x] = s / n;
    }
  return out;
}

test('row-kernel JND mask equals the formula pixel by pixel', (t) => {
  for (const [w, h, blur] of [[70, 300, 2], [3, 9, 1], [131, 140, 3]]) {
    const Y = Float32Array.from({ length: w * h }, (_, i) => {
      const x = i % w;
      const y = Math.floor(i / w);
      return Math.max(0, Math.min(255, 60 + 50 * Math.sin(x * 0.3) + 40 * Math.cos(y * 0.17) + (x > w / 2 ? 60 : 0)));
    });
    const source = (y: number, out: Float32Array): void => out.set(Y.subarray(y * w, (y + 1) * w));
    const ref = referenceJnd(Y, w, h, blur, 5);
    for (const alloc of [undefined, new Scratch()]) {
      const got = jndMask(w, h, source, blur, 5, alloc);
      let worst = 0;
      // LUT steps (1/8 grey level of background, 1/4 of gradient) bound the difference.
      for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(got[i] - ref[i]) / ref[i]);
      t.true(worst < 2e-3, `${w}x${h}: ${worst}`);
    }
  }
});

test('8-bit apply: one delta on R, G and B, alpha untouched, reported PSNR exact', (t) => {
  for (const channels of [3, 4] as const) {
    const [W, H] = [301, 203];
    const data = new Uint8Array(syntheticPixels(W, H, 11, channels));
    const raw = { data, width: W, height: H, channels, depth: 8 as const };
    const { raw: out, report } = embedRaw(raw, generateKey());
    let sse = 0;
    let mismatched = 0;
    for (let p = 0; p < data.length; p += channels) {
      const d = [0, 1, 2].map((c) => out.data[p + c] - data[p + c]);
      for (const v of d) sse += v * v;
      const clipped = [0, 1, 2].some((c) => out.data[p + c] === 0 || out.data[p + c] === 255);
      if (!clipped && (d[0] !== d[1] || d[1] !== d[2])) mismatched++;
      if (channels === 4) t.is(out.data[p + 3], data[p + 3]);
    }
    t.is(mismatched, 0);
    t.true(Math.abs(10 * Math.log10((255 * 255) / (sse / (W * H * 3))) - report.psnr) < 1e-9);
    t.true(report.psnr >= 44 && report.psnr <= 44.1, `psnr ${report.psnr}`);
  }
});
