/**
 * The apply pass's row kernels for 8-bit RGB(A) in JavaScript: the definition the WebAssembly kernels
 * (wasm-kernels.ts) must equal byte for byte, and what runs where WebAssembly SIMD does not.
 */

/** delta[x] = round(a * M * P) with M * P upsampled and rounded to float32 as a Float32Array row would hold it. */
export function deltaRow(delta: Int32Array, W: number, s: Float32Array, i0: Int32Array, f: Float32Array, a: number): void {
  for (let x = 0; x < W; x++) {
    const k = i0[x];
    delta[x] = Math.round(a * Math.fround(s[k] + f[x] * (s[k + 1] - s[k])));
  }
}

/**
 * Writes one row of original + delta from sample p; returns its sum of squared differences (colour
 * channels). `data` may be `out` (in place): pixels whose delta is 0 are then not touched at all.
 */
export function addRowRgb8(data: Uint8Array, out: Uint8Array, p: number, W: number, channels: number, delta: Int32Array): number {
  let sse = 0; // of one colour channel, unclipped pixels
  let clipped = 0; // of all three, clipped pixels
  const inPlace = data === out;
  for (let x = 0; x < W; x++, p += channels) {
    const d = delta[x];
    if (d === 0 && inPlace) continue;
    const r = data[p] + d;
    const g = data[p + 1] + d;
    const b = data[p + 2] + d;
    // All three in 0..255 exactly when no bit above the low eight is set (negatives set them all).
    if (((r | g | b) & ~255) === 0) {
      out[p] = r;
      out[p + 1] = g;
      out[p + 2] = b;
      sse += d * d;
    } else {
      clipped += clipRgb(data, out, p, d);
    }
  }
  if (channels === 4) for (let q = p - W * 4 + 3; q < p; q += 4) out[q] = data[q];
  return 3 * sse + clipped;
}

/** The clipped case of addRowRgb8 (rare): writes the three samples, returns their squared error. */
export function clipRgb(data: Uint8Array, out: Uint8Array, p: number, d: number): number {
  let sse = 0;
  for (let c = 0; c < 3; c++) {
    const v0 = data[p + c];
    let v = v0 + d;
    if (v < 0) v = 0;
    else if (v > 255) v = 255;
    out[p + c] = v;
    sse += (v - v0) * (v - v0);
  }
  return sse;
}

/** What a band of the apply pass needs: the shaped plane, its upsampling tables and the gain. */
export interface ApplyBand {
  /** M * P on its w0 x h0 grid. */
  q: Float32Array;
  w0: number;
  h0: number;
  W: number;
  channels: number;
  colI0: Int32Array;
  colF: Float32Array;
  rowI0: Int32Array;
  rowF: Float32Array;
  a: number;
}

/**
 * Rows y0..y1 of the apply pass. `data` and `out` hold those rows from their start (row y0 at
 * sample 0); they may be the same array (in place). The source row is PlaneUpsampler.source's arithmetic (float32 row), so the result is
 * the same as with the upsampler. Returns the band's sum of squared differences.
 */
export function applyBandRgb8(data: Uint8Array, out: Uint8Array, band: ApplyBand, y0: number, y1: number): number {
  const { q, w0, h0, W, channels, colI0, colF, rowI0, rowF, a } = band;
  const s = new Float32Array(w0 + 1);
  const delta = new Int32Array(W);
  let sse = 0;
  for (let y = y0, p = 0; y < y1; y++, p += W * channels) {
    const fy = rowF[y];
    const ra = rowI0[y] * w0;
    const rb = h0 > 1 ? ra + w0 : ra;
    for (let x = 0; x < w0; x++) s[x] = q[ra + x] + fy * (q[rb + x] - q[ra + x]);
    s[w0] = s[w0 - 1];
    deltaRow(delta, W, s, colI0, colF, a);
    sse += addRowRgb8(data, out, p, W, channels, delta);
  }
  return sse;
}
