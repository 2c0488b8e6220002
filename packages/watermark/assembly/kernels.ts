// Full-resolution pixel kernels of embedding, compiled to WebAssembly with SIMD (scripts/build-wasm.mjs).
// Same arithmetic as src/apply-rows.ts (float64 with float32 rounding where a Float32Array would hold the
// value, JavaScript's Math.round), so the bytes equal the JavaScript kernels'. Pointers are byte offsets
// into this module's memory, laid out by src/wasm-kernels.ts; nothing here allocates.

/** Math.round of JavaScript (the nearest integer, ties towards +infinity) as an i32, without a branch. */
// @ts-ignore: decorator
@inline function jsRound(v: f64): i32 {
  const fl = floor<f64>(v);
  return <i32>fl + <i32>(v - fl >= 0.5);
}

/**
 * Rows y0..y1 of the apply pass over 8-bit RGB(A) samples: out = clip(data + round(a * M * P)) on the
 * colour channels, alpha copied. `data` and `out` hold row y0 at their start and may be equal (in place).
 * q is M * P on its w0 x h0 grid (f32), colI0/colF and rowI0/rowF the bilinear tables (i32, f32);
 * srow (w0 + 1 f32) and drow (W * channels i16) are scratch. Returns the sum of squared differences.
 */
export function applyRows(
  data: usize, out: usize, W: i32, channels: i32, y0: i32, y1: i32,
  q: usize, w0: i32, h0: i32, colI0: usize, colF: usize, rowI0: usize, rowF: usize, a: f64,
  srow: usize, drow: usize,
): f64 {
  const rowBytes = W * channels;
  let sse: f64 = 0;
  for (let y = y0, p: usize = 0; y < y1; y++, p += <usize>rowBytes) {
    // The source row: M * P's rows blended vertically (float32 row, as PlaneUpsampler.source).
    sourceRow(q, w0, h0, rowI0, rowF, y, srow);
    // The delta of each sample, colour channels only (alpha gets 0): four pixels at a time, then the rest.
    let x = 0;
    let o: usize = drow;
    for (; x + 4 <= W; x += 4) {
      const d4 = delta4(srow, colI0 + (<usize>x << 2), colF + (<usize>x << 2), a);
      if (channels == 4) {
        const zero = i32x4.splat(0);
        v128.store(o, i8x16.shuffle(d4, zero, 0, 1, 0, 1, 0, 1, 16, 17, 4, 5, 4, 5, 4, 5, 16, 17));
        v128.store(o, i8x16.shuffle(d4, zero, 8, 9, 8, 9, 8, 9, 16, 17, 12, 13, 12, 13, 12, 13, 16, 17), 16);
        o += 32;
      } else {
        v128.store(o, i8x16.shuffle(d4, d4, 0, 1, 0, 1, 0, 1, 4, 5, 4, 5, 4, 5, 8, 9, 8, 9));
        v128.store64_lane(o, i8x16.shuffle(d4, d4, 8, 9, 12, 13, 12, 13, 12, 13, 0, 0, 0, 0, 0, 0, 0, 0), 0, 16);
        o += 24;
      }
    }
    for (; x < W; x++) {
      const k = <usize>load<i32>(colI0 + (<usize>x << 2));
      const sk = <f64>load<f32>(srow + (k << 2));
      const sk1 = <f64>load<f32>(srow + ((k + 1) << 2));
      const f = <f64>load<f32>(colF + (<usize>x << 2));
      const d = <i16>jsRound(a * <f64><f32>(sk + f * (sk1 - sk)));
      store<i16>(o, d);
      store<i16>(o, d, 2);
      store<i16>(o, d, 4);
      if (channels == 4) {
        store<i16>(o, 0, 6);
        o += 8;
      } else {
        o += 6;
      }
    }
    sse += addDeltaRow(data + p, out + p, drow, rowBytes);
  }
  return sse;
}

/**
 * The deltas of four pixels (i32 lanes): round(a * f32(s[k] + f * (s[k + 1] - s[k]))) with k and f from
 * the column tables, in float64 pairs like the scalar code (SIMD also avoids the scalar conversions'
 * dependencies between iterations, which made that loop latency-bound).
 */
// @ts-ignore: decorator
@inline function delta4(srow: usize, cols: usize, fracs: usize, a: f64): v128 {
  const kv = v128.load(cols);
  // (s[k], s[k + 1]) pairs, two per vector, then split into the s[k] and the s[k + 1] of the four pixels.
  let p01 = v128.load64_zero(srow + (<usize>i32x4.extract_lane(kv, 0) << 2));
  p01 = v128.load64_lane(srow + (<usize>i32x4.extract_lane(kv, 1) << 2), p01, 1);
  let p23 = v128.load64_zero(srow + (<usize>i32x4.extract_lane(kv, 2) << 2));
  p23 = v128.load64_lane(srow + (<usize>i32x4.extract_lane(kv, 3) << 2), p23, 1);
  const s0 = i32x4.shuffle(p01, p23, 0, 2, 4, 6);
  const s1 = i32x4.shuffle(p01, p23, 1, 3, 5, 7);
  const fv = v128.load(fracs);
  const lo = mark2(f64x2.promote_low_f32x4(s0), f64x2.promote_low_f32x4(s1), f64x2.promote_low_f32x4(fv), a);
  const hi = mark2(
    f64x2.promote_low_f32x4(i32x4.shuffle(s0, s0, 2, 3, 0, 1)),
    f64x2.promote_low_f32x4(i32x4.shuffle(s1, s1, 2, 3, 0, 1)),
    f64x2.promote_low_f32x4(i32x4.shuffle(fv, fv, 2, 3, 0, 1)),
    a,
  );
  return i32x4.shuffle(lo, hi, 0, 1, 4, 5);
}

/** Two pixels of delta4: i32 lanes 0 and 1. */
// @ts-ignore: decorator
@inline function mark2(sk: v128, sk1: v128, f: v128, a: f64): v128 {
  const mp = f64x2.promote_low_f32x4(f32x4.demote_f64x2_zero(f64x2.add(sk, f64x2.mul(f, f64x2.sub(sk1, sk)))));
  const v = f64x2.mul(f64x2.splat(a), mp);
  const fl = f64x2.floor(v);
  // JavaScript's Math.round: floor, plus one when the fraction is at least a half (mask lanes are -1).
  const up = f64x2.ge(f64x2.sub(v, fl), f64x2.splat(0.5));
  return i32x4.sub(i32x4.trunc_sat_f64x2_s_zero(fl), i32x4.shuffle(up, up, 0, 2, 0, 2));
}

/** out[i] = clip(data[i] + delta[i]) for n bytes (delta i16); returns the sum of squared actual changes. */
function addDeltaRow(data: usize, out: usize, delta: usize, n: i32): f64 {
  let sse: i64 = 0;
  let i = 0;
  while (i + 16 <= n) {
    // Blocks of at most 4096 x 16 bytes: each 32-bit lane then stays below 2^31.
    let acc = i32x4.splat(0);
    const end = min(n - 15, i + 4096 * 16);
    for (; i < end; i += 16) {
      const v = v128.load(data + <usize>i);
      const lo = i16x8.extend_low_i8x16_u(v);
      const hi = i16x8.extend_high_i8x16_u(v);
      const r = i8x16.narrow_i16x8_u(
        i16x8.add(lo, v128.load(delta + (<usize>i << 1))),
        i16x8.add(hi, v128.load(delta + (<usize>i << 1), 16)),
      );
      v128.store(out + <usize>i, r);
      acc = i32x4.add(acc, squares16(r, v, ALL));
    }
    sse += lanes(acc);
  }
  for (; i < n; i++) {
    const v0 = <i32>load<u8>(data + <usize>i);
    let v = v0 + <i32>load<i16>(delta + (<usize>i << 1));
    if (v < 0) v = 0;
    else if (v > 255) v = 255;
    store<u8>(out + <usize>i, <u8>v);
    sse += <i64>((v - v0) * (v - v0));
  }
  return <f64>sse;
}

/** Every bit set: a mask that keeps all lanes. */
const ALL = i16x8.splat(-1);

/** The squared differences a - b of 16 bytes (16-bit lanes masked by `mask`), summed pairwise into four 32-bit lanes. */
// @ts-ignore: decorator
@inline function squares16(a: v128, b: v128, mask: v128): v128 {
  const dl = v128.and(i16x8.sub(i16x8.extend_low_i8x16_u(a), i16x8.extend_low_i8x16_u(b)), mask);
  const dh = v128.and(i16x8.sub(i16x8.extend_high_i8x16_u(a), i16x8.extend_high_i8x16_u(b)), mask);
  return i32x4.add(i32x4.dot_i16x8_s(dl, dl), i32x4.dot_i16x8_s(dh, dh));
}

/** Sum of the four 32-bit lanes, as a 64-bit integer. */
// @ts-ignore: decorator
@inline function lanes(acc: v128): i64 {
  return <i64>i32x4.extract_lane(acc, 0) + <i64>i32x4.extract_lane(acc, 1) + <i64>i32x4.extract_lane(acc, 2) + <i64>i32x4.extract_lane(acc, 3);
}

/** Sum of squared differences of two 8-bit sample runs of n bytes (RGB, or RGBA with alpha left out). */
export function sseRgb8(x: usize, y: usize, n: i32, channels: i32): f64 {
  // RGBA: the alpha byte of every pixel masked out of the differences.
  const mask = channels == 4 ? i16x8(-1, -1, -1, 0, -1, -1, -1, 0) : ALL;
  let sse: i64 = 0;
  let i = 0;
  while (i + 16 <= n) {
    // A block of at most 4096 x 16 bytes: each 32-bit lane then stays below 2^31.
    let acc = i32x4.splat(0);
    const end = min(n - 15, i + 4096 * 16);
    for (; i < end; i += 16) {
      acc = i32x4.add(acc, squares16(v128.load(x + <usize>i), v128.load(y + <usize>i), mask));
    }
    sse += lanes(acc);
  }
  for (; i < n; i++) {
    if (channels == 4 && (i & 3) == 3) continue;
    const d = <i32>load<u8>(x + <usize>i) - <i32>load<u8>(y + <usize>i);
    sse += <i64>(d * d);
  }
  return <f64>sse;
}

/**
 * Luminance prefix sums of `rows` rows of 8-bit RGB(A) samples (wasm-kernels.ts lumaPrefixRgb8's
 * arithmetic): row r's W + 1 float64 sums start at prefix + r * (W + 1) * 8, with p[0] = 0 and
 * p[x + 1] = p[x] + f32(R * red + G * green + B * blue). Two rows at a time, their running sums in the
 * two lanes of one vector (two independent chains of additions); `data` must be readable 16 bytes
 * past its last row.
 */
export function lumaPrefixRows(data: usize, W: i32, channels: i32, rows: i32, prefix: usize, R: f64, G: f64, B: f64): void {
  const rowBytes = <usize>(W * channels);
  const prefixBytes = <usize>(W + 1) * 8;
  let row = 0;
  for (; row + 2 <= rows; row += 2) {
    let p = data + <usize>row * rowBytes;
    let o = prefix + <usize>row * prefixBytes;
    store<f64>(o, 0);
    store<f64>(o + prefixBytes, 0);
    let s = f64x2.splat(0);
    let x = 0;
    for (; x + 4 <= W; x += 4) {
      // Pixels x, x + 1 (lumaLo) and x + 2, x + 3 (lumaHi) of each row.
      luma4(p, channels, R, G, B);
      const aLo = lumaLo;
      const aHi = lumaHi;
      luma4(p + rowBytes, channels, R, G, B);
      s = f64x2.add(s, i64x2.shuffle(aLo, lumaLo, 0, 2));
      v128.store64_lane(o, s, 0, 8);
      v128.store64_lane(o + prefixBytes, s, 1, 8);
      s = f64x2.add(s, i64x2.shuffle(aLo, lumaLo, 1, 3));
      v128.store64_lane(o, s, 0, 16);
      v128.store64_lane(o + prefixBytes, s, 1, 16);
      s = f64x2.add(s, i64x2.shuffle(aHi, lumaHi, 0, 2));
      v128.store64_lane(o, s, 0, 24);
      v128.store64_lane(o + prefixBytes, s, 1, 24);
      s = f64x2.add(s, i64x2.shuffle(aHi, lumaHi, 1, 3));
      v128.store64_lane(o, s, 0, 32);
      v128.store64_lane(o + prefixBytes, s, 1, 32);
      o += 32;
      p += <usize>(channels << 2);
    }
    lumaPrefixTail(p, x, W, channels, o, f64x2.extract_lane(s, 0), R, G, B);
    lumaPrefixTail(p + rowBytes, x, W, channels, o + prefixBytes, f64x2.extract_lane(s, 1), R, G, B);
  }
  if (row < rows) {
    const o = prefix + <usize>row * prefixBytes;
    store<f64>(o, 0);
    lumaPrefixTail(data + <usize>row * rowBytes, 0, W, channels, o, 0, R, G, B);
  }
}

/** Pixels x..W-1 of one row, one at a time, continuing the sum s last stored at o. */
function lumaPrefixTail(p: usize, x: i32, W: i32, channels: i32, o: usize, s: f64, R: f64, G: f64, B: f64): void {
  for (; x < W; x++, p += <usize>channels) {
    o += 8;
    s += <f64>(<f32>(R * <f64>load<u8>(p) + G * <f64>load<u8>(p, 1) + B * <f64>load<u8>(p, 2)));
    store<f64>(o, s);
  }
}

/** luma4's results: the luminance of its first two pixels and of its last two, as float64 lanes. */
let lumaLo = f64x2.splat(0);
let lumaHi = f64x2.splat(0);

/** Luminance of the four pixels at p, into lumaLo and lumaHi. */
// @ts-ignore: decorator
@inline function luma4(p: usize, channels: i32, R: f64, G: f64, B: f64): void {
  const v = v128.load(p);
  const zero = i32x4.splat(0);
  let red: v128, green: v128, blue: v128;
  if (channels == 4) {
    red = i8x16.shuffle(v, zero, 0, 16, 16, 16, 4, 16, 16, 16, 8, 16, 16, 16, 12, 16, 16, 16);
    green = i8x16.shuffle(v, zero, 1, 16, 16, 16, 5, 16, 16, 16, 9, 16, 16, 16, 13, 16, 16, 16);
    blue = i8x16.shuffle(v, zero, 2, 16, 16, 16, 6, 16, 16, 16, 10, 16, 16, 16, 14, 16, 16, 16);
  } else {
    red = i8x16.shuffle(v, zero, 0, 16, 16, 16, 3, 16, 16, 16, 6, 16, 16, 16, 9, 16, 16, 16);
    green = i8x16.shuffle(v, zero, 1, 16, 16, 16, 4, 16, 16, 16, 7, 16, 16, 16, 10, 16, 16, 16);
    blue = i8x16.shuffle(v, zero, 2, 16, 16, 16, 5, 16, 16, 16, 8, 16, 16, 16, 11, 16, 16, 16);
  }
  const r2 = f64x2.splat(R);
  const g2 = f64x2.splat(G);
  const b2 = f64x2.splat(B);
  lumaLo = luma2(f64x2.convert_low_i32x4_s(red), f64x2.convert_low_i32x4_s(green), f64x2.convert_low_i32x4_s(blue), r2, g2, b2);
  lumaHi = luma2(
    f64x2.convert_low_i32x4_s(i32x4.shuffle(red, red, 2, 3, 0, 1)),
    f64x2.convert_low_i32x4_s(i32x4.shuffle(green, green, 2, 3, 0, 1)),
    f64x2.convert_low_i32x4_s(i32x4.shuffle(blue, blue, 2, 3, 0, 1)),
    r2,
    g2,
    b2,
  );
}

/** Two pixels' luminance, (R * red + G * green) + B * blue in float64, rounded to float32 as a Float32Array holds it. */
// @ts-ignore: decorator
@inline function luma2(r: v128, g: v128, b: v128, r2: v128, g2: v128, b2: v128): v128 {
  const l = f64x2.add(f64x2.add(f64x2.mul(r2, r), f64x2.mul(g2, g)), f64x2.mul(b2, b));
  return f64x2.promote_low_f32x4(f32x4.demote_f64x2_zero(l));
}

// ---- The JND mask of src/jnd.ts (same arithmetic: float64 with float32 rounding where its Float32Arrays
// hold a value, the same strips for the vertical running sum), so the mask equals the JavaScript one.

// @ts-ignore: decorator
@inline function f32at(base: usize, i: i32): f64 {
  return <f64>load<f32>(base + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function f32to(base: usize, i: i32, v: f64): void {
  store<f32>(base + (<usize>i << 2), <f32>v);
}

/** Horizontal taps of one luma row at sample offset o (box 3, box 5, 1-2-1, central difference), edges replicated. */
function jndHorizontal(Y: usize, h3: usize, h5: usize, sm: usize, df: usize, o: i32, w: i32): void {
  for (let x = 0; x < w; x++) {
    const xm2 = x > 1 ? x - 2 : 0, xm1 = x > 0 ? x - 1 : 0;
    const xp1 = x < w - 1 ? x + 1 : w - 1, xp2 = x < w - 2 ? x + 2 : w - 1;
    const a = f32at(Y, o + xm1), b = f32at(Y, o + x), c = f32at(Y, o + xp1);
    f32to(h3, o + x, a + b + c);
    f32to(h5, o + x, f32at(Y, o + xm2) + a + b + c + f32at(Y, o + xp2));
    f32to(sm, o + x, a + 2 * b + c);
    f32to(df, o + x, c - a);
  }
}

/**
 * The blurred Chou-Li JND mask of a w x h luma plane Y (f32), as jndMask of src/jnd.ts computes it with
 * `strip`-row strips: h3, h5, sm, df and J are w x h f32 scratch planes, acc (w + 1) and col (w) f64,
 * laTable and cmLut the f32 tables (LA_STEP 8, CM_STEP 4, CM_MAX 1500), out the w x h f32 mask.
 */
export function jndMask(
  Y: usize, w: i32, h: i32, blur: i32, strip: i32, laTable: usize, cmLut: usize,
  h3: usize, h5: usize, sm: usize, df: usize, J: usize, acc: usize, col: usize, out: usize,
): void {
  for (let y = 0; y < h; y++) jndHorizontal(Y, h3, h5, sm, df, y * w, w);
  for (let y = 0; y < h; y++) {
    // Rows beyond the edges are the edge rows (replicated, as the strips' buffers hold them).
    const o = y * w;
    const om1 = (y > 0 ? y - 1 : 0) * w, om2 = (y > 1 ? y - 2 : 0) * w;
    const op1 = (y < h - 1 ? y + 1 : h - 1) * w, op2 = (y < h - 2 ? y + 2 : h - 1) * w;
    for (let x = 0; x < w; x++) {
      const box5 = f32at(h5, om2 + x) + f32at(h5, om1 + x) + f32at(h5, o + x) + f32at(h5, op1 + x) + f32at(h5, op2 + x);
      const box3 = f32at(h3, om1 + x) + f32at(h3, o + x) + f32at(h3, op1 + x);
      const bg = (box5 + box3 - 2 * f32at(Y, o + x)) * (1.0 / 32);
      let bi = bg * 8;
      if (bi < 0) bi = 0;
      else if (bi > 255 * 8) bi = 255 * 8;
      const la = f32at(laTable, <i32>bi);
      const gx = f32at(df, om1 + x) + 2 * f32at(df, o + x) + f32at(df, op1 + x);
      const gy = f32at(sm, op1 + x) - f32at(sm, om1 + x);
      let gi = sqrt<f64>(gx * gx + gy * gy) * 4;
      if (gi > 1500 * 4) gi = 1500 * 4;
      const i0 = <i32>gi;
      const c0 = f32at(cmLut, i0);
      const cm = c0 + (gi - <f64>i0) * (f32at(cmLut, i0 + 1) - c0);
      f32to(J, o + x, la + cm - 0.3 * (la < cm ? la : cm));
    }
    // In-place horizontal box blur (half-width blur, window clipped at the edges).
    store<f64>(acc, 0);
    for (let x = 0; x < w; x++) store<f64>(acc + (<usize>(x + 1) << 3), load<f64>(acc + (<usize>x << 3)) + f32at(J, o + x));
    const r = blur;
    const whole = r < w ? r : w;
    const clipped = whole > w - r ? whole : w - r;
    const n = <f64>(2 * r + 1);
    for (let x = 0; x < whole; x++) {
      const b = x + r + 1 > w ? w : x + r + 1;
      f32to(J, o + x, load<f64>(acc + (<usize>b << 3)) / <f64>b);
    }
    for (let x = whole; x < clipped; x++) f32to(J, o + x, (load<f64>(acc + (<usize>(x + r + 1) << 3)) - load<f64>(acc + (<usize>(x - r) << 3))) / n);
    const total = load<f64>(acc + (<usize>w << 3));
    for (let x = clipped; x < w; x++) {
      const a = x - r < 0 ? 0 : x - r;
      f32to(J, o + x, (total - load<f64>(acc + (<usize>a << 3))) / <f64>(w - a));
    }
  }
  // Vertical box blur with a running sum restarted at each strip; rows outside the image do not count.
  for (let y0 = 0; y0 < h; y0 += strip) {
    const y1 = y0 + strip < h ? y0 + strip : h;
    for (let x = 0; x < w; x++) store<f64>(col + (<usize>x << 3), 0);
    let lo = y0 - blur > 0 ? y0 - blur : 0;
    let hi = y0 + blur < h - 1 ? y0 + blur : h - 1;
    for (let yy = lo; yy <= hi; yy++) jndAddRow(col, J, yy * w, w, 1);
    for (let y = y0; y < y1; y++) {
      const inv = 1.0 / <f64>(hi - lo + 1);
      for (let x = 0; x < w; x++) f32to(out, y * w + x, load<f64>(col + (<usize>x << 3)) * inv);
      const nlo = y + 1 - blur > 0 ? y + 1 - blur : 0;
      const nhi = y + 1 + blur < h - 1 ? y + 1 + blur : h - 1;
      if (nlo > lo) jndAddRow(col, J, lo * w, w, -1);
      if (nhi > hi) jndAddRow(col, J, nhi * w, w, 1);
      lo = nlo;
      hi = nhi;
    }
  }
}

function jndAddRow(col: usize, J: usize, o: i32, w: i32, sign: i32): void {
  if (sign > 0) for (let x = 0; x < w; x++) store<f64>(col + (<usize>x << 3), load<f64>(col + (<usize>x << 3)) + f32at(J, o + x));
  else for (let x = 0; x < w; x++) store<f64>(col + (<usize>x << 3), load<f64>(col + (<usize>x << 3)) - f32at(J, o + x));
}

// ---- The plan's shaped plane and its gain histogram (src/embed.ts shapedPlane and ShapedHistogram.addRow,
// same arithmetic), so that a fresh process does not run them as cold JavaScript.

/**
 * Row y of a bilinear upsampling of the w0 x h0 f32 plane p (PlaneUpsampler.source): srow[x] =
 * f32(p[a + x] + fy * (p[b + x] - p[a + x])), plus one spare copy of the last sample.
 */
function sourceRow(p: usize, w0: i32, h0: i32, rowI0: usize, rowF: usize, y: i32, srow: usize): void {
  const fy = <f64>load<f32>(rowF + (<usize>y << 2));
  const ra = <usize>(load<i32>(rowI0 + (<usize>y << 2)) * w0);
  const rb = h0 > 1 ? ra + <usize>w0 : ra;
  for (let x = 0; x < w0; x++) {
    const qa = <f64>load<f32>(p + ((ra + <usize>x) << 2));
    const qb = <f64>load<f32>(p + ((rb + <usize>x) << 2));
    store<f32>(srow + (<usize>x << 2), <f32>(qa + fy * (qb - qa)));
  }
  store<f32>(srow + (<usize>w0 << 2), load<f32>(srow + (<usize>(w0 - 1) << 2)));
}

/** f32(s[k] + f[x] * (s[k + 1] - s[k])) with k = colI0[x]: output x of an upsampled row. */
// @ts-ignore: decorator
@inline function upsampled(srow: usize, colI0: usize, colF: usize, x: i32): f64 {
  const k = <usize>load<i32>(colI0 + (<usize>x << 2));
  const sk = <f64>load<f32>(srow + (k << 2));
  const sk1 = <f64>load<f32>(srow + ((k + 1) << 2));
  return <f64><f32>(sk + <f64>load<f32>(colF + (<usize>x << 2)) * (sk1 - sk));
}

/**
 * M * P on the wm x hm mask grid, in place over the mask (f32): mask[y][x] = f32(mask[y][x] * up[y][x])
 * with up the w0 x h0 pattern p upsampled by the tables (colI0/colF: wm entries, rowI0/rowF: hm). srow
 * is scratch (w0 + 1 f32). Returns the largest |value| of the result.
 */
export function shapePlane(
  mask: usize, wm: i32, hm: i32, p: usize, w0: i32, h0: i32, colI0: usize, colF: usize, rowI0: usize, rowF: usize, srow: usize,
): f64 {
  let bound: f64 = 0;
  for (let y = 0; y < hm; y++) {
    sourceRow(p, w0, h0, rowI0, rowF, y, srow);
    const o = mask + (<usize>(y * wm) << 2);
    for (let x = 0; x < wm; x++) {
      const at = o + (<usize>x << 2);
      const v = <f32>(<f64>load<f32>(at) * upsampled(srow, colI0, colF, x));
      store<f32>(at, v);
      const m = <f64>abs<f32>(v);
      if (m > bound) bound = m;
    }
  }
  return bound;
}

/**
 * Adds rows y0, y0 + step, ... < H of the shaped plane q (wm x hm f32) upsampled to W x H by the tables
 * (colI0/colF: W entries, rowI0/rowF: H) to the histogram counts (u32): bin half + round(v * k).
 * srow is scratch (wm + 1 f32). Returns the number of rows added.
 */
export function shapedHistogram(
  q: usize, wm: i32, hm: i32, colI0: usize, colF: usize, rowI0: usize, rowF: usize,
  W: i32, H: i32, y0: i32, step: i32, k: f64, half: i32, counts: usize, srow: usize,
): i32 {
  let rows = 0;
  for (let y = y0; y < H; y += step) {
    sourceRow(q, wm, hm, rowI0, rowF, y, srow);
    for (let x = 0; x < W; x++) {
      const at = counts + (<usize>(half + jsRound(upsampled(srow, colI0, colF, x) * k)) << 2);
      store<u32>(at, load<u32>(at) + 1);
    }
    rows++;
  }
  return rows;
}

// ---- The keyed pattern's inverse DCT (src/dct.ts LowpassIdct.run with a power-of-two FFT side, then
// src/pattern.ts's unit-RMS scaling), same operations in the same order on float64, so the same floats.
// The cosine tables come from the JavaScript (Math.cos and Math.sin are not WebAssembly's to redo).

// @ts-ignore: decorator
@inline function f64at(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}

// @ts-ignore: decorator
@inline function f64to(base: usize, i: i32, v: f64): void {
  store<f64>(base + (<usize>i << 3), v);
}

function zero64(base: usize, from: i32, to: i32): void {
  for (let i = from; i < to; i++) f64to(base, i, 0);
}

/** fft.ts fftRadix2(re, im, inverse = true): rev (u32 n), cos and sin (f64 n / 2, sin negated) from radix2Plan. */
function ifftRadix2(re: usize, im: usize, n: i32, rev: usize, cosT: usize, sinT: usize): void {
  for (let i = 0; i < n; i++) {
    const j = <i32>load<u32>(rev + (<usize>i << 2));
    if (j > i) {
      let t = f64at(re, i); f64to(re, i, f64at(re, j)); f64to(re, j, t);
      t = f64at(im, i); f64to(im, i, f64at(im, j)); f64to(im, j, t);
    }
  }
  for (let a = 0; a + 1 < n; a += 2) {
    const tr = f64at(re, a + 1);
    const ti = f64at(im, a + 1);
    f64to(re, a + 1, f64at(re, a) - tr); f64to(im, a + 1, f64at(im, a) - ti);
    f64to(re, a, f64at(re, a) + tr); f64to(im, a, f64at(im, a) + ti);
  }
  for (let size = 4; size <= n; size <<= 1) {
    const half = size >> 1;
    const step = n / size;
    for (let k = 0; k < half; k++) {
      const wr = f64at(cosT, k * step);
      const wi = -1.0 * f64at(sinT, k * step);
      for (let a = k; a < n; a += size) {
        const b = a + half;
        const tr = f64at(re, b) * wr - f64at(im, b) * wi;
        const ti = f64at(re, b) * wi + f64at(im, b) * wr;
        f64to(re, b, f64at(re, a) - tr); f64to(im, b, f64at(im, a) - ti);
        f64to(re, a, f64at(re, a) + tr); f64to(im, a, f64at(im, a) + ti);
      }
    }
  }
}

/** LowpassIdct.fftPair: the orthonormal DCT-III of lines a and b (b < 0: none) of p, in place. */
function idctPair(
  p: usize, a: i32, b: i32, stride: i32, n: i32, k1: i32, twRe: usize, twIm: usize,
  re: usize, im: usize, ta: usize, tb: usize, rev: usize, cosT: usize, sinT: usize,
): void {
  const c0 = sqrt<f64>(<f64>n);
  const c = sqrt<f64>(<f64>n / 2);
  for (let k = 0; k < k1; k++) {
    f64to(ta, k, f64at(p, a + k * stride) * c);
    f64to(tb, k, b >= 0 ? f64at(p, b + k * stride) * c : 0);
  }
  f64to(ta, 0, f64at(ta, 0) * (c0 / c));
  f64to(tb, 0, f64at(tb, 0) * (c0 / c));
  zero64(ta, k1, n);
  zero64(tb, k1, n);
  f64to(re, 0, f64at(ta, 0));
  f64to(im, 0, f64at(tb, 0));
  for (let k = 1; k < n; k++) {
    const ak = f64at(ta, k), ank = f64at(ta, n - k), bk = f64at(tb, k), bnk = f64at(tb, n - k);
    const cr = f64at(twRe, k), ci = f64at(twIm, k);
    f64to(re, k, ak * cr - ank * ci + bk * ci + bnk * cr);
    f64to(im, k, -ak * ci - ank * cr + bk * cr - bnk * ci);
  }
  if (n > 1) ifftRadix2(re, im, n, rev, cosT, sinT);
  const half = (n + 1) >> 1;
  const inv = 1 / <f64>n;
  for (let k = 0; k < half; k++) f64to(p, a + 2 * k * stride, f64at(re, k) * inv);
  for (let k = 0; k < n >> 1; k++) f64to(p, a + (2 * k + 1) * stride, f64at(re, n - 1 - k) * inv);
  if (b >= 0) {
    for (let k = 0; k < half; k++) f64to(p, b + 2 * k * stride, f64at(im, k) * inv);
    for (let k = 0; k < n >> 1; k++) f64to(p, b + (2 * k + 1) * stride, f64at(im, n - 1 - k) * inv);
  }
}

/**
 * LowpassIdct.run(coef, out) for a w x h plane (f64), then the pattern's scaling: out32[i] =
 * f32(out[i] * s) with s = 1 / sqrt(mean square) (0 for a zero plane). kxFrom/kxTo (i32 ky1) are the
 * band's rows, basis the sparse axis' DCT-III matrix, twRe/twIm (f64 n) the DCT twiddles and rev,
 * cosT, sinT the radix-2 tables of the FFT side (length n = w when columns come first, else h, a power
 * of two). E and O (f64, max(kx1, (w + 1) / 2)), re, im, ta, tb (f64 n) are scratch.
 */
export function lowpassPattern(
  coef: usize, out: usize, out32: usize, w: i32, h: i32, rowsFirst: i32, kx1: i32, ky1: i32, kxFrom: usize, kxTo: usize, basis: usize,
  twRe: usize, twIm: usize, rev: usize, cosT: usize, sinT: usize, E: usize, O: usize, re: usize, im: usize, ta: usize, tb: usize,
): void {
  zero64(out, 0, w * h);
  if (rowsFirst) {
    const half = (w + 1) >> 1;
    for (let ky = 0; ky < ky1; ky++) {
      const o = ky * w;
      zero64(E, 0, half);
      zero64(O, 0, half);
      const to = load<i32>(kxTo + (<usize>ky << 2));
      for (let kx = load<i32>(kxFrom + (<usize>ky << 2)); kx < to; kx++) {
        const c = f64at(coef, o + kx);
        const acc = kx & 1 ? O : E;
        const b = kx * w;
        for (let x = 0; x < half; x++) f64to(acc, x, f64at(acc, x) + c * f64at(basis, b + x));
      }
      for (let x = 0; x < half; x++) {
        f64to(out, o + x, f64at(E, x) + f64at(O, x));
        f64to(out, o + w - 1 - x, f64at(E, x) - f64at(O, x));
      }
    }
    for (let x = 0; x < w; x += 2) idctPair(out, x, x + 1 < w ? x + 1 : -1, w, h, ky1, twRe, twIm, re, im, ta, tb, rev, cosT, sinT);
  } else {
    const half = (h + 1) >> 1;
    for (let y = 0; y < half; y++) {
      zero64(E, 0, kx1);
      zero64(O, 0, kx1);
      for (let ky = 0; ky < ky1; ky++) {
        const c = f64at(basis, ky * h + y);
        const acc = ky & 1 ? O : E;
        const src = ky * w;
        const to = load<i32>(kxTo + (<usize>ky << 2));
        for (let kx = load<i32>(kxFrom + (<usize>ky << 2)); kx < to; kx++) f64to(acc, kx, f64at(acc, kx) + c * f64at(coef, src + kx));
      }
      const a = y * w;
      const b = (h - 1 - y) * w;
      for (let kx = 0; kx < kx1; kx++) {
        f64to(out, a + kx, f64at(E, kx) + f64at(O, kx));
        f64to(out, b + kx, f64at(E, kx) - f64at(O, kx));
      }
    }
    for (let y = 0; y < h; y += 2) idctPair(out, y * w, y + 1 < h ? (y + 1) * w : -1, 1, w, kx1, twRe, twIm, re, im, ta, tb, rev, cosT, sinT);
  }
  const n = w * h;
  let ss: f64 = 0;
  for (let i = 0; i < n; i++) {
    const v = f64at(out, i);
    ss += v * v;
  }
  const s = ss > 0 ? 1 / sqrt<f64>(ss / <f64>n) : 0;
  for (let i = 0; i < n; i++) store<f32>(out32 + (<usize>i << 2), <f32>(f64at(out, i) * s));
}

/**
 * ShapedHistogram.meanSquare's sum (src/embed.ts, same order): sum over bins i with a count c of
 * c * e * e, e = a * (i - half) * step, rounded as Math.round does when `integer`.
 */
export function histogramSquares(counts: usize, bins: i32, half: i32, a: f64, step: f64, integer: i32): f64 {
  let ss: f64 = 0;
  for (let i = 0; i < bins; i++) {
    const c = load<u32>(counts + (<usize>i << 2));
    if (c == 0) continue;
    const d = a * <f64>(i - half) * step;
    let e = d;
    if (integer) {
      const fl = floor<f64>(d);
      e = d - fl >= 0.5 ? fl + 1 : fl;
    }
    ss += <f64>c * e * e;
  }
  return ss;
}

/**
 * AreaReducer.pushPrefix (@filigrane/vision area-reduce.ts, same arithmetic in the same order, so the
 * same sums) for `rows` prefix rows starting at `prefix`, `stride` bytes apart, which are source rows y,
 * y + 1, ...: `at`/`frac` are the column boundary table (i32, f64; w + 1 entries), `cell`/`weight` the
 * row overlap table (i32, f32; one entry per source row). The two running destination rows are bufA
 * and bufB (w float64 each), the open row's being bufA when `open` is even; a finished row goes to
 * `out` (f32) as its sums over `area`. Returns the open destination row after the last source row.
 */
export function areaPushRows(
  prefix: usize, stride: usize, rows: i32, w: i32, at: usize, frac: usize, cell: usize, weight: usize,
  y: i32, open: i32, bufA: usize, bufB: usize, out: usize, area: f64,
): i32 {
  for (let r = 0; r < rows; r++, y++) {
    const p = prefix + <usize>r * stride;
    const cy = load<i32>(cell + (<usize>y << 2));
    const wy = <f64>load<f32>(weight + (<usize>y << 2));
    // Downscaling: consecutive source rows fall in the same or the next destination row.
    if (cy > open) open = areaFlush(open, w, bufA, bufB, out, area);
    const c = open & 1 ? bufB : bufA;
    const n = open & 1 ? bufA : bufB;
    const wy1 = 1 - wy;
    let i = load<i32>(at);
    let pi = load<f64>(p + (<usize>i << 3));
    let prev = pi + load<f64>(frac) * (load<f64>(p + (<usize>i << 3), 8) - pi);
    for (let x = 0; x < w; x++) {
      const xo = <usize>x << 3;
      i = load<i32>(at + (<usize>x << 2), 4);
      pi = load<f64>(p + (<usize>i << 3));
      const cur = pi + load<f64>(frac + xo, 8) * (load<f64>(p + (<usize>i << 3), 8) - pi);
      const v = cur - prev;
      prev = cur;
      store<f64>(c + xo, load<f64>(c + xo) + wy * v);
      store<f64>(n + xo, load<f64>(n + xo) + wy1 * v);
    }
  }
  return open;
}

/** AreaReducer's flush: the open row written to `out` as averages, its buffer cleared; returns open + 1. */
export function areaFlush(open: i32, w: i32, bufA: usize, bufB: usize, out: usize, area: f64): i32 {
  const c = open & 1 ? bufB : bufA;
  const o = out + (<usize>(open * w) << 2);
  for (let x = 0; x < w; x++) {
    store<f32>(o + (<usize>x << 2), <f32>(load<f64>(c + (<usize>x << 3)) / area));
    store<f64>(c + (<usize>x << 3), 0);
  }
  return open + 1;
}
