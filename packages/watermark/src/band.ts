/**
 * The DCT coefficients that carry the mark: radial frequency rho = sqrt((kx/2w)^2 + (ky/2h)^2) in
 * [low, high] cycles per pixel, in row-major order of (ky, kx). The order is part of the format:
 * carrier value i goes to the i-th coefficient of this list.
 */
const cache = new Map<string, Int32Array>();

export function bandIndices(w: number, h: number, low: number, high: number): Int32Array {
  const id = `${w}x${h}:${low}:${high}`;
  let out = cache.get(id);
  if (out) return out;
  const list: number[] = [];
  const kyMax = Math.min(h - 1, Math.ceil(2 * h * high));
  for (let ky = 0; ky <= kyMax; ky++) {
    const fy = ky / (2 * h);
    for (let kx = 0; kx < w; kx++) {
      const fx = kx / (2 * w);
      const rho = Math.sqrt(fx * fx + fy * fy);
      if (rho > high) break;
      if (rho >= low) list.push(ky * w + kx);
    }
  }
  out = Int32Array.from(list);
  if (cache.size > 64) cache.clear();
  cache.set(id, out);
  return out;
}

/** One past the largest kx in the band: columns beyond it are all zero. */
export function bandColumns(w: number, high: number): number {
  return Math.min(w, Math.floor(2 * w * high) + 1);
}
