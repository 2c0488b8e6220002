/**
 * Exact area-averaging downscale fed one source row at a time, so a 24 MP image can be reduced to
 * the canonical grid without ever holding a full-resolution float plane.
 */

/** For each source index, the (at most two) destination cells it overlaps and its weights. */
function overlapTable(src: number, dst: number): { cell: Int32Array; weight: Float32Array } {
  const ratio = src / dst;
  const cell = new Int32Array(src);
  const weight = new Float32Array(src); // share of the pixel that falls in `cell`; the rest goes to cell+1
  for (let i = 0; i < src; i++) {
    const c = Math.min(dst - 1, Math.floor(i / ratio));
    const boundary = (c + 1) * ratio; // right edge of cell c in source units
    cell[i] = c;
    weight[i] = c + 1 < dst && boundary < i + 1 ? boundary - i : 1;
  }
  return { cell, weight };
}

export class AreaReducer {
  private readonly acc: Float64Array;
  private readonly rowAcc: Float64Array;
  private readonly cols: { cell: Int32Array; weight: Float32Array };
  private readonly rows: { cell: Int32Array; weight: Float32Array };
  private nextRow = 0;

  constructor(
    readonly srcWidth: number,
    readonly srcHeight: number,
    readonly width: number,
    readonly height: number,
  ) {
    if (width > srcWidth || height > srcHeight) throw new RangeError('AreaReducer only downscales');
    this.acc = new Float64Array(width * height);
    this.rowAcc = new Float64Array(width);
    this.cols = overlapTable(srcWidth, width);
    this.rows = overlapTable(srcHeight, height);
  }

  /** Adds the next source row (rows must come in order, 0..srcHeight-1). */
  push(row: ArrayLike<number>): void {
    const { cell, weight } = this.cols;
    const r = this.rowAcc;
    r.fill(0);
    const w = this.width;
    for (let x = 0; x < this.srcWidth; x++) {
      const c = cell[x];
      const a = weight[x];
      const v = row[x];
      r[c] += a * v;
      if (a < 1) r[c + 1] += (1 - a) * v;
    }
    const y = this.nextRow++;
    const cy = this.rows.cell[y];
    const wy = this.rows.weight[y];
    const acc = this.acc;
    let o = cy * w;
    for (let x = 0; x < w; x++) acc[o + x] += wy * r[x];
    if (wy < 1) {
      o += w;
      for (let x = 0; x < w; x++) acc[o + x] += (1 - wy) * r[x];
    }
  }

  /** The reduced plane (averages); call after all source rows were pushed. */
  result(): Float32Array {
    if (this.nextRow !== this.srcHeight) throw new Error(`AreaReducer: ${this.nextRow}/${this.srcHeight} rows pushed`);
    const area = (this.srcWidth / this.width) * (this.srcHeight / this.height);
    const out = new Float32Array(this.acc.length);
    for (let i = 0; i < out.length; i++) out[i] = this.acc[i] / area;
    return out;
  }
}

/** Area-downscales a whole plane. */
export function areaReduce(plane: Float32Array, w: number, h: number, w0: number, h0: number): Float32Array {
  if (w0 === w && h0 === h) return plane.slice();
  const r = new AreaReducer(w, h, w0, h0);
  for (let y = 0; y < h; y++) r.push(plane.subarray(y * w, (y + 1) * w));
  return r.result();
}
