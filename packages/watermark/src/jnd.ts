/**
 * Chou-Li pixel JND (as in Video Seal's jnd.py), computed on row strips so that memory stays
 * bounded at 24 MP, then box-blurred over about one canonical pixel so the mask does not print
 * fine texture onto the low-frequency pattern.
 *   bg = 5x5 weighted mean (ring weights 1/2/0, sum 32); la = 17(1 - sqrt(bg/127)) + 3 below 127,
 *   3/128 (bg - 127) + 3 above, capped at laCap (the uncapped 17-20 levels in blacks mottle);
 *   cm = 0.117 * 16 g^2.4 / (g^2 + 26^2) with g the Sobel magnitude;
 *   JND = la + cm - 0.3 min(la, cm).
 */
import { FRESH, type Allocator } from './scratch';
import { jndMaskWasm } from './wasm-kernels';

/** Writes luminance row y (0..255) of the analysed plane into `out`. */
export type RowSource = (y: number, out: Float32Array) => void;

const CM_STEP = 4; // LUT entries per unit of gradient magnitude
const CM_MAX = 1500;
const cmLut = (() => {
  const lut = new Float32Array(CM_MAX * CM_STEP + 2);
  for (let i = 0; i < lut.length; i++) {
    const g = i / CM_STEP;
    lut[i] = (0.117 * 16 * Math.pow(g, 2.4)) / (g * g + 26 * 26);
  }
  return lut;
})();

const LA_STEP = 8; // LUT entries per grey level of background luminance
function laLut(cap: number): Float32Array {
  const lut = new Float32Array(256 * LA_STEP + 2);
  for (let i = 0; i < lut.length; i++) {
    const bg = i / LA_STEP;
    const la = bg <= 127 ? 17 * (1 - Math.sqrt(bg / 127)) + 3 : (3 / 128) * (bg - 127) + 3;
    lut[i] = Math.min(la, cap);
  }
  return lut;
}

/*
 * The kernels below work on one row each and are plain functions of typed arrays: V8 optimises a
 * function called once per row after a few rows, with complete type feedback, whereas one long
 * loop per strip runs interpreted until on-stack replacement and then deoptimises at the next loop
 * it has no feedback for (measured: the first embeds of a process ran the mask 2-3x slower).
 */

/** The horizontal sums of pixel x of the row at offset o (box 3, box 5, 1-2-1 smoothing, central difference), edges replicated. */
function horizontalTaps(
  Y: Float32Array,
  w: number,
  x: number,
  o: number,
  h3: Float32Array,
  h5: Float32Array,
  sm: Float32Array,
  df: Float32Array,
): void {
  const xm2 = x > 1 ? x - 2 : 0, xm1 = x > 0 ? x - 1 : 0;
  const xp1 = x < w - 1 ? x + 1 : w - 1, xp2 = x < w - 2 ? x + 2 : w - 1;
  const a = Y[o + xm1], b = Y[o + x], c = Y[o + xp1];
  h3[o + x] = a + b + c;
  h5[o + x] = Y[o + xm2] + a + b + c + Y[o + xp2];
  sm[o + x] = a + 2 * b + c;
  df[o + x] = c - a;
}

/** Horizontal sums of the luma row stored at offset o of Y. */
function horizontalRow(Y: Float32Array, o: number, w: number, h3: Float32Array, h5: Float32Array, sm: Float32Array, df: Float32Array): void {
  // Border columns replicate the edge pixel; the interior needs no index clamping, and the same
  // sums in the same order keep the result identical to the clamped form.
  const edge = Math.min(2, w);
  for (let x = 0; x < edge; x++) horizontalTaps(Y, w, x, o, h3, h5, sm, df);
  for (let x = 2; x < w - 2; x++) {
    const a = Y[o + x - 1], b = Y[o + x], c = Y[o + x + 1];
    h3[o + x] = a + b + c;
    h5[o + x] = Y[o + x - 2] + a + b + c + Y[o + x + 2];
    sm[o + x] = a + 2 * b + c;
    df[o + x] = c - a;
  }
  for (let x = Math.max(edge, w - 2); x < w; x++) horizontalTaps(Y, w, x, o, h3, h5, sm, df);
}

/** JND of the buffer row at offset o (rows o - 2w .. o + 2w hold the taps) into J at offset jo. */
function jndRow(
  Y: Float32Array,
  h3: Float32Array,
  h5: Float32Array,
  sm: Float32Array,
  df: Float32Array,
  o: number,
  w: number,
  laTable: Float32Array,
  J: Float32Array,
  jo: number,
): void {
  const om1 = o - w, op1 = o + w, om2 = o - 2 * w, op2 = o + 2 * w;
  for (let x = 0; x < w; x++) {
    const box5 = h5[om2 + x] + h5[om1 + x] + h5[o + x] + h5[op1 + x] + h5[op2 + x];
    const box3 = h3[om1 + x] + h3[o + x] + h3[op1 + x];
    const bg = (box5 + box3 - 2 * Y[o + x]) * (1 / 32);
    let bi = bg * LA_STEP;
    if (bi < 0) bi = 0;
    else if (bi > 255 * LA_STEP) bi = 255 * LA_STEP;
    const la = laTable[bi | 0];
    const gx = df[om1 + x] + 2 * df[o + x] + df[op1 + x];
    const gy = sm[op1 + x] - sm[om1 + x];
    let gi = Math.sqrt(gx * gx + gy * gy) * CM_STEP;
    if (gi > CM_MAX * CM_STEP) gi = CM_MAX * CM_STEP;
    const i0 = gi | 0;
    const cm = cmLut[i0] + (gi - i0) * (cmLut[i0 + 1] - cmLut[i0]);
    J[jo + x] = la + cm - 0.3 * (la < cm ? la : cm);
  }
}

/** In-place horizontal box blur (half-width r, window clipped at the edges) of the row at offset o. */
function blurRow(J: Float32Array, o: number, w: number, r: number, acc: Float64Array): void {
  acc[0] = 0;
  for (let x = 0; x < w; x++) acc[x + 1] = acc[x] + J[o + x];
  const whole = Math.min(r, w); // first x whose window is whole
  const clipped = Math.max(whole, w - r); // first x whose window is clipped on the right
  const n = 2 * r + 1;
  for (let x = 0; x < whole; x++) {
    const b = x + r + 1 > w ? w : x + r + 1;
    J[o + x] = acc[b] / b;
  }
  for (let x = whole; x < clipped; x++) J[o + x] = (acc[x + r + 1] - acc[x - r]) / n;
  for (let x = clipped; x < w; x++) {
    const a = x - r < 0 ? 0 : x - r;
    J[o + x] = (acc[w] - acc[a]) / (w - a);
  }
}

/** col += J row at offset jo (sign +1) or col -= it (sign -1). */
function addRow(col: Float64Array, J: Float32Array, jo: number, w: number, sign: number): void {
  if (sign > 0) for (let x = 0; x < w; x++) col[x] += J[jo + x];
  else for (let x = 0; x < w; x++) col[x] -= J[jo + x];
}

/** out[oo + x] = col[x] * inv. */
function scaleRow(out: Float32Array, oo: number, col: Float64Array, w: number, inv: number): void {
  for (let x = 0; x < w; x++) out[oo + x] = col[x] * inv;
}

/** Reusable scratch buffers for one image width and strip height. */
export class JndStrips {
  private readonly rows: number;
  private readonly y: Float32Array;
  private readonly h5: Float32Array;
  private readonly h3: Float32Array;
  private readonly sm: Float32Array;
  private readonly df: Float32Array;
  private readonly jnd: Float32Array;
  private readonly acc: Float64Array;
  private readonly col: Float64Array;
  private readonly laTable: Float32Array;

  constructor(
    private readonly width: number,
    private readonly height: number,
    private readonly source: RowSource,
    stripHeight: number,
    /** Half-width of the box blur applied to the mask. */
    private readonly blur: number,
    private readonly laCap: number,
    alloc: Allocator = FRESH,
  ) {
    const w = width;
    this.rows = stripHeight + 2 * blur + 4;
    // Every buffer is fully written before it is read (acc[0] and col are set in blurInto).
    this.y = alloc.float32('jnd.y', this.rows * w);
    this.h5 = alloc.float32('jnd.h5', this.rows * w);
    this.h3 = alloc.float32('jnd.h3', this.rows * w);
    this.sm = alloc.float32('jnd.sm', this.rows * w);
    this.df = alloc.float32('jnd.df', this.rows * w);
    this.jnd = alloc.float32('jnd.j', (stripHeight + 2 * blur) * w);
    this.acc = alloc.float64('jnd.acc', w + 1);
    this.col = alloc.float64('jnd.col', w);
    this.laTable = laLut(laCap);
  }

  /** Writes the blurred JND mask of rows [y0, y1) into `out` (row-major, width W). */
  compute(y0: number, y1: number, out: Float32Array): void {
    const { blur, laTable } = this;
    const w = this.width;
    const H = this.height;
    const top = y0 - blur - 2; // first luma row held in the buffers
    const nRows = y1 - y0 + 2 * blur + 4;
    const Y = this.y, h5 = this.h5, h3 = this.h3, sm = this.sm, df = this.df;
    for (let r = 0; r < nRows; r++) {
      const src = Math.min(H - 1, Math.max(0, top + r)); // replicate the border rows
      this.source(src, Y.subarray(r * w, (r + 1) * w));
      horizontalRow(Y, r * w, w, h3, h5, sm, df);
    }
    // JND for rows [y0 - blur, y1 + blur): buffer row index j + 2.
    const jRows = y1 - y0 + 2 * blur;
    const J = this.jnd;
    for (let j = 0; j < jRows; j++) jndRow(Y, h3, h5, sm, df, (j + 2) * w, w, laTable, J, j * w);
    this.blurInto(J, jRows, y0, y1, out);
  }

  /** Box blur (half-width `blur`, clamped at the image edges) of the JND rows into `out`. */
  private blurInto(J: Float32Array, jRows: number, y0: number, y1: number, out: Float32Array): void {
    const w = this.width;
    const H = this.height;
    const r = this.blur;
    for (let j = 0; j < jRows; j++) blurRow(J, j * w, w, r, this.acc);
    // Vertical pass with a running sum; rows outside the image do not count (replicating them would
    // over-weight the edge rows).
    const col = this.col;
    col.fill(0);
    const jRow = (yy: number): number => (yy - (y0 - r)) * w;
    let lo = Math.max(0, y0 - r);
    let hi = Math.min(H - 1, y0 + r);
    for (let yy = lo; yy <= hi; yy++) addRow(col, J, jRow(yy), w, 1);
    for (let y = y0; y < y1; y++) {
      scaleRow(out, (y - y0) * w, col, w, 1 / (hi - lo + 1));
      // slide the window to y + 1
      const nlo = Math.max(0, y + 1 - r);
      const nhi = Math.min(H - 1, y + 1 + r);
      if (nlo > lo) addRow(col, J, jRow(lo), w, -1);
      if (nhi > hi) addRow(col, J, jRow(nhi), w, 1);
      lo = nlo;
      hi = nhi;
    }
  }
}

/** Blur half-width: about one canonical pixel at the mask's resolution, at least one pixel. */
export function maskBlurRadius(width: number, gridWidth: number): number {
  return Math.max(1, Math.round(width / gridWidth));
}

/**
 * Grid the mask is computed on: the image area-reduced to at most 1.5 L on the long side. The
 * pattern has no energy above 0.12 cycles per canonical pixel, so what masks it is content at about
 * that scale; a grid 1.5 times finer than the canonical one keeps that masking and bounds the cost
 * (24 MP: a 0.4 MP mask instead of a 24 MP one).
 */
export function maskGrid(width: number, height: number, canonicalSize: number): { maskWidth: number; maskHeight: number } {
  const s = Math.min(1, (1.5 * canonicalSize) / Math.max(width, height));
  return { maskWidth: Math.max(1, Math.round(width * s)), maskHeight: Math.max(1, Math.round(height * s)) };
}

/** Rows per strip: the vertical running sum restarts at each, in both kernels (so they agree float for float). */
const STRIP_ROWS = 128;

/** The blurred JND mask of a whole w x h plane given by rows. */
export function jndMask(
  width: number,
  height: number,
  source: RowSource,
  blur: number,
  laCap: number,
  alloc: Allocator = FRESH,
): Float32Array {
  const out = alloc.float32('jnd.mask', width * height);
  // WebAssembly where available: the same floats, without the JavaScript's cold first calls (the
  // mask runs once per embedding, so a process never warms it up).
  if (jndMaskWasm(width, height, source, blur, STRIP_ROWS, laLut(laCap), cmLut, out)) return out;
  return jndMaskJs(width, height, source, blur, laCap, alloc, out);
}

/** jndMask in JavaScript (the reference of the WebAssembly kernel, and the fallback). */
export function jndMaskJs(width: number, height: number, source: RowSource, blur: number, laCap: number, alloc: Allocator, out: Float32Array): Float32Array {
  const strip = STRIP_ROWS;
  const strips = new JndStrips(width, height, source, strip, blur, laCap, alloc);
  for (let y0 = 0; y0 < height; y0 += strip) {
    const y1 = Math.min(height, y0 + strip);
    strips.compute(y0, y1, out.subarray(y0 * width, y1 * width));
  }
  return out;
}
