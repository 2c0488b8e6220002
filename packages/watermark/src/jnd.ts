/**
 * Chou-Li pixel JND (as in Video Seal's jnd.py), computed on row strips so that memory stays
 * bounded at 24 MP, then box-blurred over about one canonical pixel so the mask does not print
 * fine texture onto the low-frequency pattern.
 *   bg = 5x5 weighted mean (ring weights 1/2/0, sum 32); la = 17(1 - sqrt(bg/127)) + 3 below 127,
 *   3/128 (bg - 127) + 3 above, capped at laCap (the uncapped 17-20 levels in blacks mottle);
 *   cm = 0.117 * 16 g^2.4 / (g^2 + 26^2) with g the Sobel magnitude;
 *   JND = la + cm - 0.3 min(la, cm).
 */
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

/** The horizontal sums of pixel x of a row (box 3, box 5, 1-2-1 smoothing, central difference), edges replicated. */
function horizontalTaps(
  row: Float32Array,
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
  const a = row[xm1], b = row[x], c = row[xp1];
  h3[o + x] = a + b + c;
  h5[o + x] = row[xm2] + a + b + c + row[xp2];
  sm[o + x] = a + 2 * b + c;
  df[o + x] = c - a;
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
  ) {
    const w = width;
    this.rows = stripHeight + 2 * blur + 4;
    this.y = new Float32Array(this.rows * w);
    this.h5 = new Float32Array(this.rows * w);
    this.h3 = new Float32Array(this.rows * w);
    this.sm = new Float32Array(this.rows * w);
    this.df = new Float32Array(this.rows * w);
    this.jnd = new Float32Array((stripHeight + 2 * blur) * w);
    this.acc = new Float64Array(w + 1);
    this.col = new Float64Array(w);
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
      const row = Y.subarray(r * w, (r + 1) * w);
      this.source(src, row);
      const o = r * w;
      // Border columns replicate the edge pixel; the interior needs no index clamping, and the same
      // sums in the same order keep the result identical to the clamped form.
      const edge = Math.min(2, w);
      for (let x = 0; x < edge; x++) horizontalTaps(row, w, x, o, h3, h5, sm, df);
      for (let x = 2; x < w - 2; x++) {
        const a = row[x - 1], b = row[x], c = row[x + 1];
        h3[o + x] = a + b + c;
        h5[o + x] = row[x - 2] + a + b + c + row[x + 2];
        sm[o + x] = a + 2 * b + c;
        df[o + x] = c - a;
      }
      for (let x = Math.max(edge, w - 2); x < w; x++) horizontalTaps(row, w, x, o, h3, h5, sm, df);
    }
    // JND for rows [y0 - blur, y1 + blur): buffer row index r + 2.
    const jRows = y1 - y0 + 2 * blur;
    const J = this.jnd;
    for (let j = 0; j < jRows; j++) {
      const r = j + 2;
      const o = r * w, om1 = o - w, op1 = o + w, om2 = o - 2 * w, op2 = o + 2 * w;
      const jo = j * w;
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
    this.blurInto(J, jRows, y0, y1, out);
  }

  /** Box blur (half-width `blur`, clamped at the image edges) of the JND rows into `out`. */
  private blurInto(J: Float32Array, jRows: number, y0: number, y1: number, out: Float32Array): void {
    const w = this.width;
    const H = this.height;
    const r = this.blur;
    const acc = this.acc;
    // Horizontal pass in place: prefix sums per row.
    const whole = Math.min(r, w); // first x whose window is whole
    const clipped = Math.max(whole, w - r); // first x whose window is clipped on the right
    const n = 2 * r + 1;
    for (let j = 0; j < jRows; j++) {
      const o = j * w;
      acc[0] = 0;
      for (let x = 0; x < w; x++) acc[x + 1] = acc[x] + J[o + x];
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
    // Vertical pass with a running sum; rows outside the image do not count (replicating them would
    // over-weight the edge rows).
    const col = this.col;
    col.fill(0);
    const jRow = (yy: number): number => (yy - (y0 - r)) * w;
    let lo = Math.max(0, y0 - r);
    let hi = Math.min(H - 1, y0 + r);
    for (let yy = lo; yy <= hi; yy++) {
      const jo = jRow(yy);
      for (let x = 0; x < w; x++) col[x] += J[jo + x];
    }
    for (let y = y0; y < y1; y++) {
      const inv = 1 / (hi - lo + 1);
      const oo = (y - y0) * w;
      for (let x = 0; x < w; x++) out[oo + x] = col[x] * inv;
      // slide the window to y + 1
      const nlo = Math.max(0, y + 1 - r);
      const nhi = Math.min(H - 1, y + 1 + r);
      if (nlo > lo) {
        const jo = jRow(lo);
        for (let x = 0; x < w; x++) col[x] -= J[jo + x];
      }
      if (nhi > hi) {
        const jo = jRow(nhi);
        for (let x = 0; x < w; x++) col[x] += J[jo + x];
      }
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

/** The blurred JND mask of a whole w x h plane given by rows. */
export function jndMask(width: number, height: number, source: RowSource, blur: number, laCap: number): Float32Array {
  const strip = 128;
  const out = new Float32Array(width * height);
  const strips = new JndStrips(width, height, source, strip, blur, laCap);
  for (let y0 = 0; y0 < height; y0 += strip) {
    const y1 = Math.min(height, y0 + strip);
    strips.compute(y0, y1, out.subarray(y0 * width, y1 * width));
  }
  return out;
}
