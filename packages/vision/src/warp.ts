/** Resampling a query plane onto the canonical grid through a homography, with a validity mask. */
import { invert, type Mat3 } from './homography';

export interface Warped {
  values: Float32Array;
  /** 1 where the grid pixel maps inside the query, eroded by `erode` pixels. */
  mask: Uint8Array;
  /** Number of valid (mask = 1) grid pixels. */
  valid: number;
}

/** Bilinear warp of `plane` (qw x qh) onto a w x h grid; `toGrid` maps query to grid coordinates. */
export function warpToGrid(plane: Float32Array, qw: number, qh: number, toGrid: Mat3, w: number, h: number, erode = 3): Warped {
  const inv = invert(toGrid);
  const values = new Float32Array(w * h);
  const raw = new Uint8Array(w * h);
  if (!inv) return { values, mask: raw, valid: 0 };
  const [a, b, c, d, e, f, g, hh, i] = inv;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const z = g * x + hh * y + i;
      const sx = (a * x + b * y + c) / z;
      const sy = (d * x + e * y + f) / z;
      if (!(sx >= 0 && sy >= 0 && sx <= qw - 1 && sy <= qh - 1)) continue;
      const x0 = Math.min(qw - 2, Math.floor(sx));
      const y0 = Math.min(qh - 2, Math.floor(sy));
      const fx = sx - x0;
      const fy = sy - y0;
      const p = y0 * qw + x0;
      const top = plane[p] + fx * (plane[p + 1] - plane[p]);
      const bottom = plane[p + qw] + fx * (plane[p + qw + 1] - plane[p + qw]);
      values[y * w + x] = top + fy * (bottom - top);
      raw[y * w + x] = 1;
    }
  }
  const mask = erodeMask(raw, w, h, erode);
  let valid = 0;
  for (let k = 0; k < mask.length; k++) valid += mask[k];
  return { values, mask, valid };
}

/** Separable binary erosion with a (2r+1)^2 square: border pixels interpolate across the edge. */
export function erodeMask(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  if (r <= 0) return mask.slice();
  const tmp = new Uint8Array(w * h);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let run = 0; // length of the current run of ones ending at x
    const row = y * w;
    const runs = new Int32Array(w);
    for (let x = 0; x < w; x++) runs[x] = run = mask[row + x] ? run + 1 : 0;
    // a pixel survives if the run through it extends r both sides: check run length at x + r
    for (let x = r; x < w - r; x++) tmp[row + x] = runs[x + r] >= 2 * r + 1 ? 1 : 0;
  }
  for (let x = 0; x < w; x++) {
    let run = 0;
    const runs = new Int32Array(h);
    for (let y = 0; y < h; y++) runs[y] = run = tmp[y * w + x] ? run + 1 : 0;
    for (let y = r; y < h - r; y++) out[y * w + x] = runs[y + r] >= 2 * r + 1 ? 1 : 0;
  }
  return out;
}
