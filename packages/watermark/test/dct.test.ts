import test from 'ava';
import { dct2d, idct2d } from '../src/dct';
import { fft } from '../src/fft';

function naiveDct2d(x: Float64Array, w: number, h: number): Float64Array {
  const out = new Float64Array(w * h);
  for (let ky = 0; ky < h; ky++)
    for (let kx = 0; kx < w; kx++) {
      let s = 0;
      for (let y = 0; y < h; y++)
        for (let xx = 0; xx < w; xx++)
          s += x[y * w + xx] * Math.cos((Math.PI * (2 * xx + 1) * kx) / (2 * w)) * Math.cos((Math.PI * (2 * y + 1) * ky) / (2 * h));
      out[ky * w + kx] = s * (kx ? Math.sqrt(2 / w) : Math.sqrt(1 / w)) * (ky ? Math.sqrt(2 / h) : Math.sqrt(1 / h));
    }
  return out;
}

for (const [w, h] of [[8, 8], [13, 7], [16, 37]]) {
  test(`orthonormal DCT-II matches the definition and inverts (${w}x${h})`, (t) => {
    const x = Float64Array.from({ length: w * h }, (_, i) => Math.sin(i * 1.7) * 10 + (i % 5));
    const fast = x.slice();
    dct2d(fast, w, h);
    const ref = naiveDct2d(x, w, h);
    for (let i = 0; i < x.length; i++) t.true(Math.abs(fast[i] - ref[i]) < 1e-9);
    idct2d(fast, w, h);
    for (let i = 0; i < x.length; i++) t.true(Math.abs(fast[i] - x[i]) < 1e-9);
  });
}

test('Bluestein FFT of a prime length matches the DFT', (t) => {
  const n = 31;
  const re = Float64Array.from({ length: n }, (_, i) => Math.cos(i * 0.3) + i / n);
  const im = Float64Array.from({ length: n }, (_, i) => Math.sin(i * 0.11));
  const r2 = re.slice();
  const i2 = im.slice();
  fft(r2, i2);
  for (let k = 0; k < n; k++) {
    let sr = 0;
    let si = 0;
    for (let j = 0; j < n; j++) {
      const a = (-2 * Math.PI * j * k) / n;
      sr += re[j] * Math.cos(a) - im[j] * Math.sin(a);
      si += re[j] * Math.sin(a) + im[j] * Math.cos(a);
    }
    t.true(Math.abs(sr - r2[k]) < 1e-9 && Math.abs(si - i2[k]) < 1e-9);
  }
});

test('band-limited inverse skips zero columns without changing the result', (t) => {
  const w = 24;
  const h = 10;
  const a = new Float64Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < 5; x++) a[y * w + x] = Math.cos(x * y + 1);
  const b = a.slice();
  idct2d(a, w, h);
  idct2d(b, w, h, 5);
  for (let i = 0; i < a.length; i++) t.true(Math.abs(a[i] - b[i]) < 1e-12);
});
