/**
 * The watermark pattern: the keyed carrier placed on the band of a canonical w0 x h0 DCT plane,
 * inverse-transformed, then bilinearly upsampled to full resolution one row at a time.
 */
import { bandColumns, bandIndices } from './band';
import { gaussianCarrier } from './carrier';
import { idct2d } from './dct';

/** Canonical pattern with unit RMS. */
export function canonicalPattern(key: Uint8Array, w0: number, h0: number, low: number, high: number): Float32Array {
  const band = bandIndices(w0, h0, low, high);
  const g = gaussianCarrier(key, band.length);
  const plane = new Float64Array(w0 * h0);
  for (let i = 0; i < band.length; i++) plane[band[i]] = g[i];
  idct2d(plane, w0, h0, bandColumns(w0, high));
  let ss = 0;
  for (let i = 0; i < plane.length; i++) ss += plane[i] * plane[i];
  const s = ss > 0 ? 1 / Math.sqrt(ss / plane.length) : 0;
  const out = new Float32Array(plane.length);
  for (let i = 0; i < plane.length; i++) out[i] = plane[i] * s;
  return out;
}

/** Source index and weight of a pixel-centre-aligned linear resampling from n0 to n samples. */
function lerpTable(n0: number, n: number): { i0: Int32Array; f: Float32Array } {
  const i0 = new Int32Array(n);
  const f = new Float32Array(n);
  const s = n0 / n;
  for (let x = 0; x < n; x++) {
    let u = (x + 0.5) * s - 0.5;
    if (u < 0) u = 0;
    if (u > n0 - 1) u = n0 - 1;
    const k = Math.min(n0 - 2, Math.floor(u));
    i0[x] = Math.max(0, k);
    f[x] = n0 > 1 ? u - i0[x] : 0;
  }
  return { i0, f };
}

/** Bilinear, pixel-centre-aligned upsampling of a small plane, one output row at a time. */
export class PlaneUpsampler {
  private readonly cols: { i0: Int32Array; f: Float32Array };
  private readonly rows: { i0: Int32Array; f: Float32Array };
  private readonly tmp: Float32Array;

  constructor(
    private readonly p0: Float32Array,
    private readonly w0: number,
    private readonly h0: number,
    readonly width: number,
    readonly height: number,
  ) {
    this.cols = lerpTable(w0, width);
    this.rows = lerpTable(h0, height);
    this.tmp = new Float32Array(w0);
  }

  row(y: number, out: Float32Array): void {
    const { p0, w0, h0, tmp } = this;
    const r0 = this.rows.i0[y];
    const fy = this.rows.f[y];
    const a = r0 * w0;
    const b = h0 > 1 ? a + w0 : a;
    for (let x = 0; x < w0; x++) tmp[x] = p0[a + x] + fy * (p0[b + x] - p0[a + x]);
    const { i0, f } = this.cols;
    if (w0 === 1) {
      out.fill(tmp[0], 0, this.width);
      return;
    }
    for (let x = 0; x < this.width; x++) {
      const k = i0[x];
      out[x] = tmp[k] + f[x] * (tmp[k + 1] - tmp[k]);
    }
  }
}
