/**
 * The WebAssembly kernels (assembly/kernels.ts) against the JavaScript ones they replace: the same bytes
 * and the same squared error, on clipped pixels, deltas beyond a byte, widths that leave SIMD tails,
 * RGB and RGBA, in place or not, over several memory windows; and the compiled module in
 * src/kernels-wasm.ts is what the source compiles to.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import test from 'ava';
import { applyBandRgb8, type ApplyBand } from '../src/apply-rows';
import { ShapedHistogram, shapedPlane, shapedPlaneJs } from '../src/embed';
import { jndMask, jndMaskJs } from '../src/jnd';
import { bandIndices } from '../src/band';
import { LowpassIdct } from '../src/dct';
import { canonicalGrid, DEFAULTS } from '../src/params';
import { canonicalPattern, PlaneUpsampler } from '../src/pattern';
import { Scratch } from '../src/scratch';
import { AreaReducer } from '@filigrane/vision';
import { applyBand, kernelImage, lumaAreaReducer, lumaPrefixRgb8, lumaPrefixRows, sseRgb8, wasmKernelsAvailable } from '../src/wasm-kernels';

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Bilinear tables from a w0 x h0 grid to W x H, clamped like PlaneUpsampler's. */
function band(W: number, H: number, w0: number, h0: number, channels: number, a: number, seed: number): ApplyBand {
  const r = rng(seed);
  const q = new Float32Array(w0 * h0).map(() => r() * 2 - 1);
  const table = (n: number, m: number): { i0: Int32Array; f: Float32Array } => {
    const i0 = new Int32Array(n);
    const f = new Float32Array(n);
    for (let x = 0; x < n; x++) {
      const s = ((x + 0.5) * m) / n - 0.5;
      const i = Math.max(0, Math.min(m - 2, Math.floor(s)));
      i0[x] = Math.max(0, i);
      f[x] = m > 1 ? Math.max(0, Math.min(1, s - i)) : 0;
    }
    return { i0, f };
  };
  const cols = table(W, w0);
  const rows = table(H, h0);
  return { q, w0, h0, W, channels, colI0: cols.i0, colF: cols.f, rowI0: rows.i0, rowF: rows.f, a };
}

/** Byte equality without a structural diff (ava's deepEqual is slow on megabytes). */
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

/** Samples with saturated runs (0 and 255) beside mid-tones, so both clipping directions occur. */
function samples(n: number, seed: number): Uint8Array {
  const r = rng(seed);
  return new Uint8Array(n).map(() => {
    const v = r();
    return v < 0.1 ? 0 : v > 0.9 ? 255 : Math.floor(v * 256);
  });
}

test('the WebAssembly kernels are the ones running here', (t) => {
  t.true(wasmKernelsAvailable());
});

for (const [W, H, w0, h0, channels, a] of [
  [5641, 97, 769, 14, 3, 3.7], // several windows, a tail of one pixel
  [1003, 211, 131, 29, 4, 2.2], // RGBA
  [7, 5, 3, 2, 3, 9], // shorter than a SIMD block
  [64, 48, 64, 48, 3, 300], // deltas beyond a byte: everything clips
  [333, 40, 1, 1, 4, 1.5], // a single-sample plane
] as const) {
  test(`applyBand writes applyBandRgb8's bytes (${W}x${H}x${channels}, grid ${w0}x${h0}, gain ${a})`, (t) => {
    const b = band(W, H, w0, h0, channels, a, W + H);
    const data = samples(W * H * channels, W * 7 + H);
    const expected = new Uint8Array(data.length);
    const expectedSse = applyBandRgb8(data, expected, b, 0, H);
    const out = new Uint8Array(data.length);
    t.is(applyBand(data, out, b, 0, H), expectedSse);
    t.true(same(out, expected));
    // In place, and from a later row with the data starting at that row.
    const inPlace = data.slice();
    t.is(applyBand(inPlace, inPlace, b, 0, H), expectedSse);
    t.true(same(inPlace, expected));
    const y0 = Math.floor(H / 3);
    const rowBytes = W * channels;
    const part = new Uint8Array(data.length - y0 * rowBytes);
    const partSse = applyBand(data.subarray(y0 * rowBytes), part, b, y0, H);
    t.is(partSse, applyBandRgb8(data.subarray(y0 * rowBytes), new Uint8Array(part.length), b, y0, H));
    t.true(same(part, expected.subarray(y0 * rowBytes)));
    // A change of gain on the same tables (the tables stay placed in the module) is applied.
    const twice = new Uint8Array(data.length);
    const again = { ...b, a: a * 2 };
    t.is(applyBand(data, twice, again, 0, H), applyBandRgb8(data, expected, again, 0, H));
    t.true(same(twice, expected));
  });

  test(`applyBand marks an image of kernelImage in place with the same bytes (${W}x${H}x${channels}, grid ${w0}x${h0})`, (t) => {
    const b = band(W, H, w0, h0, channels, a, W + H);
    const data = samples(W * H * channels, W * 7 + H);
    const expected = new Uint8Array(data.length);
    const expectedSse = applyBandRgb8(data, expected, b, 0, H);
    const held = kernelImage(data.length, b)!;
    t.is(held.length, data.length);
    t.true(held.every((v) => v === 0));
    t.is(applyBand(data, held, b, 0, H), expectedSse);
    t.true(same(held, expected));
    // Another gain over it (embed()'s later passes), a band of rows into a part of it, and the held image as its own input.
    const again = { ...b, a: a * 2 };
    const expectedAgain = new Uint8Array(data.length);
    t.is(applyBand(data, held, again, 0, H), applyBandRgb8(data, expectedAgain, again, 0, H));
    t.true(same(held, expectedAgain));
    const y0 = Math.floor(H / 3);
    const rowBytes = W * channels;
    t.is(applyBand(data.subarray(y0 * rowBytes), held.subarray(y0 * rowBytes), b, y0, H), applyBandRgb8(data.subarray(y0 * rowBytes), new Uint8Array(data.length - y0 * rowBytes), b, y0, H));
    t.true(same(held.subarray(y0 * rowBytes), expected.subarray(y0 * rowBytes)));
    held.set(data);
    t.is(applyBand(held, held, b, 0, H), expectedSse);
    t.true(same(held, expected));
    // Tables larger than the room it was made for: the window path, the same bytes.
    const wider = band(W, H, w0 + 64, h0 + 64, channels, a, W + H + 1);
    const expectedWider = new Uint8Array(data.length);
    t.is(applyBand(data, held, wider, 0, H), applyBandRgb8(data, expectedWider, wider, 0, H));
    t.true(same(held, expectedWider));
  });
}

test('sseRgb8 sums the colour channels only, over any length', (t) => {
  for (const [n, channels] of [[3 * 699_051, 3], [(1 << 20) + 12, 4], [9, 3], [4, 4]] as const) {
    const x = samples(n, n);
    const y = samples(n, n + 1);
    let expected = 0;
    for (let p = 0; p < n; p += channels) {
      for (let c = 0; c < 3; c++) expected += (x[p + c] - y[p + c]) ** 2;
    }
    t.is(sseRgb8(x, y, channels), expected, `${n} samples, ${channels} channels`);
  }
  t.throws(() => sseRgb8(new Uint8Array(6), new Uint8Array(9), 3));
});

test('lumaPrefixRows gives every row the prefix sums lumaPrefixRgb8 defines', (t) => {
  // Several windows with an odd row at the end of each, SIMD tails, RGBA; a single row; a single column.
  for (const [W, H, channels] of [[3001, 203, 3], [1003, 77, 4], [5, 1, 3], [1, 9, 4]] as const) {
    const data = samples(W * H * channels, W + H);
    const expected = new Float64Array(W + 1);
    let y = 0;
    let equal = true;
    lumaPrefixRows(data, W, H, channels, (prefix) => {
      lumaPrefixRgb8(data, y * W * channels, W, channels, expected);
      if (prefix.length !== W + 1 || prefix.some((v, i) => v !== expected[i])) equal = false;
      y++;
    });
    t.is(y, H, `${W}x${H}x${channels}: every row`);
    t.true(equal, `${W}x${H}x${channels}: the same sums`);
  }
});

test('lumaAreaReducer gives the planes AreaReducer makes from lumaPrefixRgb8, float for float', (t) => {
  t.true(wasmKernelsAvailable());
  // The 17.9 MP file's canonical and mask grids (on a strip of its rows, pushed in uneven chunks as the
  // idle slices do), both grids at once, RGBA, factors under 2, one-row and one-column images, equal sizes.
  const cases: [number, number, 3 | 4, [number, number][], number[]][] = [
    [5640, 61, 3, [[512, 5], [768, 9]], [7, 30, 1, 23]],
    [1410, 793, 3, [[768, 432]], [793]],
    [1003, 77, 4, [[640, 50], [1, 1]], [40, 37]],
    [31, 17, 3, [[31, 17], [16, 9]], [5, 5, 5, 2]],
    [300, 1, 3, [[7, 1]], [1]],
    [1, 40, 4, [[1, 13]], [39, 1]],
  ];
  for (const [W, H, channels, grids, chunks] of cases) {
    const data = samples(W * H * channels, W * 7 + H);
    const reducer = lumaAreaReducer(W, H, channels, grids.map(([width, height]) => ({ width, height })))!;
    let y = 0;
    for (const n of chunks) {
      reducer.push(data.subarray(y * W * channels, (y + n) * W * channels), n);
      y += n;
    }
    const got = reducer.results();
    grids.forEach(([w, h], i) => {
      const expected = new AreaReducer(W, H, w, h);
      const prefix = new Float64Array(W + 1);
      for (let r = 0; r < H; r++) {
        lumaPrefixRgb8(data, r * W * channels, W, channels, prefix);
        expected.pushPrefix(prefix);
      }
      const want = expected.result();
      t.is(got[i].length, want.length);
      t.true(got[i].every((v, j) => Object.is(v, want[j])), `${W}x${H}x${channels} -> ${w}x${h}`);
    });
  }
  const early = lumaAreaReducer(10, 10, 3, [{ width: 5, height: 5 }])!;
  early.push(samples(30 * 9, 1), 9);
  t.throws(() => early.results(), { message: /9\/10 rows/ });
  t.throws(() => lumaAreaReducer(10, 10, 3, [{ width: 11, height: 5 }]), { instanceOf: RangeError });
});

test('the JND mask in WebAssembly equals the JavaScript one, float for float', (t) => {
  // Sizes around the 128-row strips of the vertical running sum, the edge taps and a 1 x 1 plane.
  for (const [w, h, blur] of [[768, 432, 2], [70, 300, 2], [3, 9, 1], [131, 140, 3], [1, 1, 1], [5, 260, 4], [600, 129, 1]] as const) {
    const Y = Float32Array.from({ length: w * h }, (_, i) => {
      const x = i % w;
      const y = Math.floor(i / w);
      return Math.max(0, Math.min(255, 60 + 50 * Math.sin(x * 0.3) + 40 * Math.cos(y * 0.17) + (x > w / 2 ? 60 : 0) + ((i * 7919) % 13)));
    });
    const source = (y: number, out: Float32Array): void => out.set(Y.subarray(y * w, (y + 1) * w));
    for (const cap of [5, 6, 30]) {
      const wasm = jndMask(w, h, source, blur, cap);
      const js = jndMaskJs(w, h, source, blur, cap, new Scratch(), new Float32Array(w * h));
      t.deepEqual(wasm, js, `${w}x${h}, blur ${blur}, cap ${cap}`);
    }
  }
});

test('the shaped plane and its gain histogram in WebAssembly equal the JavaScript ones', (t) => {
  // Mask grids with and without SIMD tails, a 1-row pattern, the 17.9 MP file's (768 x 432 from 512 x 288).
  for (const [wm, hm, w0, h0, W, H] of [[768, 432, 512, 288, 5640, 3172], [37, 21, 16, 9, 101, 67], [9, 5, 4, 1, 30, 11], [2, 2, 2, 2, 3, 3]] as const) {
    const r = rng(wm * 31 + hm);
    const mask = Float32Array.from({ length: wm * hm }, () => 0.5 + 4 * r());
    const p0 = Float32Array.from({ length: w0 * h0 }, () => (r() * 2 - 1) * 3);
    const wasm = shapedPlane(mask.slice(), wm, hm, p0, w0, h0);
    const js = shapedPlaneJs(mask.slice(), wm, hm, p0, w0, h0);
    t.true(Buffer.from(wasm.q.buffer).equals(Buffer.from(js.q.buffer)), `${wm}x${hm}: the same floats`);
    t.is(wasm.bound, js.bound, `${wm}x${hm}: the same bound`);
    const shaped = new PlaneUpsampler(js.q, wm, hm, W, H);
    const step = Math.max(2, Math.floor((3 * H) / hm));
    const a = new ShapedHistogram(js.bound);
    const b = new ShapedHistogram(js.bound);
    const n = a.addRows(shaped, Math.floor(step / 2), step);
    t.is(n, b.addRows(shaped, Math.floor(step / 2), step, true), `${wm}x${hm}: the same pixel count`);
    t.true(n > 0);
    t.deepEqual(a.counts, b.counts, `${W}x${H}: the same counts`);
    for (const gain of [0, 0.37, 1, 2.9, 17, 1e6]) {
      for (const integer of [true, false]) {
        t.is(a.meanSquare(gain, n, integer), a.meanSquare(gain, n, integer, true), `${wm}x${hm}: mean square at gain ${gain}${integer ? ', rounded' : ''}`);
      }
    }
  }
});

test('the histogram mean square in WebAssembly rounds ties as Math.round does', (t) => {
  // Bound 4095: one bin per unit, so gain 0.5 lands every odd bin exactly on a tie, both signs.
  const h = new ShapedHistogram(ShapedHistogram.BINS / 2 - 1);
  h.counts.forEach((_, i) => (h.counts[i] = (i * 7) % 5));
  for (const gain of [0.5, 1.5, 2.5, 0.25]) t.is(h.meanSquare(gain, 1000, true), h.meanSquare(gain, 1000, true, true), `gain ${gain}`);
});

test('the keyed pattern in WebAssembly equals the JavaScript one, float for float', (t) => {
  // Landscape (columns first), portrait (rows first), square, panoramas and small grids: every size whose
  // FFT side is a power of two takes the WebAssembly, the others stay JavaScript (checked the same).
  const sizes = [[5640, 3172], [3172, 5640], [4000, 4000], [6000, 1000], [1000, 6000], [640, 480], [300, 200], [5000, 3750]];
  let wasm = 0;
  for (const [i, [W, H]] of sizes.entries()) {
    const key = new Uint8Array(32).map((_, j) => (j * 37 + i * 101) & 255);
    const { gridWidth: w0, gridHeight: h0 } = canonicalGrid(W, H, DEFAULTS.canonicalSize);
    const a = canonicalPattern(key, w0, h0, DEFAULTS.bandLow, DEFAULTS.bandHigh);
    const b = canonicalPattern(key, w0, h0, DEFAULTS.bandLow, DEFAULTS.bandHigh, new Float32Array(w0 * h0), true);
    t.true(Buffer.from(a.buffer).equals(Buffer.from(b.buffer)), `${W}x${H} (grid ${w0}x${h0}): the same floats`);
    t.true(b.some((v) => v !== 0));
    // The band's rows, as pattern.ts plans them, decide which side the FFT runs on.
    const band = bandIndices(w0, h0, DEFAULTS.bandLow, DEFAULTS.bandHigh);
    const ky1 = Math.floor(Math.max(...band) / w0) + 1;
    const kxFrom = new Int32Array(ky1).fill(w0);
    const kxTo = new Int32Array(ky1);
    for (const j of band) {
      const ky = Math.floor(j / w0);
      kxFrom[ky] = Math.min(kxFrom[ky], j - ky * w0);
      kxTo[ky] = Math.max(kxTo[ky], j - ky * w0 + 1);
    }
    const p = new LowpassIdct(w0, h0, kxFrom, kxTo).parts();
    const n = p.rowsFirst ? h0 : w0;
    if ((n & (n - 1)) === 0) wasm++;
  }
  t.true(wasm >= 4, `${wasm} sizes went through the WebAssembly`);
});

test('src/kernels-wasm.ts is what assembly/kernels.ts compiles to', (t) => {
  const script = join(__dirname, '..', '..', 'scripts', 'build-wasm.mjs');
  t.notThrows(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' }));
});
