/**
 * Exact area-averaging downscale fed one source row at a time, so a 24 MP image can be reduced to
 * the canonical grid without ever holding a full-resolution float plane.
 */

/** For each source index, the (at most two) destination cells it overlaps and its weights. */
export function overlapTable(src: number, dst: number): { cell: Int32Array; weight: Float32Array } {
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

/**
 * Cell boundaries j * src / dst (j = 0..dst) as an index into a prefix-sum array and a fraction:
 * the integral of the source up to boundary j is P[at[j]] + frac[j] * (P[at[j] + 1] - P[at[j]]).
 */
export function boundaryTable(src: number, dst: number): { at: Int32Array; frac: Float64Array } {
  const at = new Int32Array(dst + 1);
  const frac = new Float64Array(dst + 1);
  for (let j = 0; j <= dst; j++) {
    const b = (j * src) / dst;
    const i = Math.min(src - 1, Math.floor(b));
    at[j] = i;
    frac[j] = b - i;
  }
  return { at, frac };
}

export class AreaReducer {
  private readonly out: Float32Array;
  private readonly prefix: Float64Array;
  private readonly cols: { at: Int32Array; frac: Float64Array };
  private readonly rows: { cell: Int32Array; weight: Float32Array };
  /**
   * Running sums of the destination rows a source row can touch (cur = row `open`, next = open + 1).
   * Only these two rows are accumulated; a finished row is scaled and written out once, so the whole
   * reduced plane is never held in double precision nor revisited per source row.
   */
  private cur: Float64Array;
  private next: Float64Array;
  private open = 0;
  private nextRow = 0;

  constructor(
    readonly srcWidth: number,
    readonly srcHeight: number,
    readonly width: number,
    readonly height: number,
    /** Where the result goes (width * height, contents overwritten); a new array by default. */
    out?: Float32Array,
  ) {
    if (width > srcWidth || height > srcHeight) throw new RangeError('AreaReducer only downscales');
    if (out && out.length !== width * height) throw new RangeError('AreaReducer output has the wrong length');
    this.out = out ?? new Float32Array(width * height);
    this.prefix = new Float64Array(srcWidth + 1);
    this.cur = new Float64Array(width);
    this.next = new Float64Array(width);
    this.cols = boundaryTable(srcWidth, width);
    this.rows = overlapTable(srcHeight, height);
  }

  /** Adds the next source row (rows must come in order, 0..srcHeight-1). */
  push(row: ArrayLike<number>): void {
    const p = this.prefix;
    let s = 0;
    for (let x = 0; x < this.srcWidth; x++) {
      s += row[x];
      p[x + 1] = s;
    }
    this.pushPrefix(p);
  }

  /**
   * Adds the next source row given as its prefix sums (p[0] = 0, p[x + 1] = row[0] + ... + row[x]),
   * so that one prefix pass can feed several reducers of the same source width. A cell's horizontal
   * sum is then the difference of the (linearly interpolated) prefix at its two boundaries: two
   * lookups per destination cell instead of a scattered add per source pixel.
   */
  pushPrefix(p: Float64Array): void {
    const { at, frac } = this.cols;
    const w = this.width;
    const y = this.nextRow++;
    const cy = this.rows.cell[y];
    const wy = this.rows.weight[y];
    // Downscaling: consecutive source rows fall in the same or the next destination row.
    if (cy > this.open) this.flush();
    const c = this.cur;
    const n = this.next;
    const wy1 = 1 - wy; // 0 when the source row lies inside one destination row: adds exactly nothing
    let i = at[0];
    let prev = p[i] + frac[0] * (p[i + 1] - p[i]);
    for (let x = 0; x < w; x++) {
      i = at[x + 1];
      const cur = p[i] + frac[x + 1] * (p[i + 1] - p[i]);
      const v = cur - prev;
      prev = cur;
      c[x] += wy * v;
      n[x] += wy1 * v;
    }
  }

  /** Writes the open row as averages and moves on to the next one. */
  private flush(): void {
    const area = (this.srcWidth / this.width) * (this.srcHeight / this.height);
    const o = this.open * this.width;
    const c = this.cur;
    for (let x = 0; x < this.width; x++) this.out[o + x] = c[x] / area;
    c.fill(0);
    this.cur = this.next;
    this.next = c;
    this.open++;
  }

  /** The reduced plane (averages); call after all source rows were pushed. */
  result(): Float32Array {
    if (this.nextRow !== this.srcHeight) throw new Error(`AreaReducer: ${this.nextRow}/${this.srcHeight} rows pushed`);
    while (this.open < this.height) this.flush();
    return this.out;
  }
}

/** Area-downscales a whole plane. */
export function areaReduce(plane: Float32Array, w: number, h: number, w0: number, h0: number): Float32Array {
  if (w0 === w && h0 === h) return plane.slice();
  const r = new AreaReducer(w, h, w0, h0);
  for (let y = 0; y < h; y++) r.push(plane.subarray(y * w, (y + 1) * w));
  return r.result();
}
