/** 3x3 row-major projective transforms: composition, inversion, application. */
export type Mat3 = [number, number, number, number, number, number, number, number, number];

export const IDENTITY: Mat3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

export function multiply(a: Mat3, b: Mat3): Mat3 {
  const out = new Array<number>(9) as Mat3;
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
  return out;
}

export function invert(m: Mat3): Mat3 | undefined {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!Number.isFinite(det) || Math.abs(det) < 1e-12) return undefined;
  const s = 1 / det;
  return [
    A * s, -(b * i - c * h) * s, (b * f - c * e) * s,
    B * s, (a * i - c * g) * s, -(a * f - c * d) * s,
    C * s, -(a * h - b * g) * s, (a * e - b * d) * s,
  ];
}

export function apply(m: Mat3, x: number, y: number): [number, number] {
  const w = m[6] * x + m[7] * y + m[8];
  return [(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w];
}

/** Scale then translate: maps (x, y) to (sx*x + tx, sy*y + ty). */
export function scaleTranslate(sx: number, sy: number, tx: number, ty: number): Mat3 {
  return [sx, 0, tx, 0, sy, ty, 0, 0, 1];
}

/**
 * Maps pixel centres of a W x H image onto a w x h image of the same scene (pixel centres at
 * integer coordinates on both sides).
 */
export function resizeMap(W: number, H: number, w: number, h: number): Mat3 {
  const sx = w / W;
  const sy = h / H;
  return scaleTranslate(sx, sy, 0.5 * sx - 0.5, 0.5 * sy - 0.5);
}

/** Geometric mean of the local linear scale of `m` at (x, y). */
export function localScale(m: Mat3, x: number, y: number): number {
  const [x0, y0] = apply(m, x, y);
  const [x1, y1] = apply(m, x + 1, y);
  const [x2, y2] = apply(m, x, y + 1);
  return Math.sqrt(Math.abs((x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)));
}

/**
 * Where two images overlap, from the homography `h` that maps the copy (qw x qh) onto the original
 * (rw x rh): the copy's outline in the original and the original's outline in the copy, each as
 * four corners (x0, y0 ... x3, y3) in fractions of that image's width and height (may fall outside
 * 0..1 where one image extends beyond the other). Undefined when `h` cannot be inverted.
 */
export function matchedRegion(h: Mat3, qw: number, qh: number, rw: number, rh: number): { copy: number[]; original: number[] } | undefined {
  const back = invert(h);
  if (!back) return undefined;
  const corners = (w: number, ht: number) => [0, 0, w, 0, w, ht, 0, ht];
  const outline = (m: Mat3, w: number, ht: number, ow: number, oh: number) => {
    const c = corners(w, ht);
    const out: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [x, y] = apply(m, c[2 * i]!, c[2 * i + 1]!);
      out.push(Math.round((x / ow) * 1e4) / 1e4, Math.round((y / oh) * 1e4) / 1e4);
    }
    return out.every(Number.isFinite) ? out : undefined;
  };
  const original = outline(h, qw, qh, rw, rh);
  const copy = outline(back, rw, rh, qw, qh);
  return original && copy ? { copy, original } : undefined;
}

/**
 * The matchedRegion of a copy registered through its horizontal mirror, back in the copy's own
 * coordinates: the original's outline in the copy flips (x -> 1 - x), and the copy's corners in
 * the original swap left for right (the mirror's top-left is the copy's top-right), so corner i
 * still names the same corner of the copy.
 */
export function unmirroredRegion(region: { copy: number[]; original: number[] }): { copy: number[]; original: number[] } {
  const o = region.original;
  const point = (i: number) => [o[2 * i]!, o[2 * i + 1]!];
  return {
    copy: region.copy.map((v, i) => (i % 2 === 0 ? Math.round((1 - v) * 1e4) / 1e4 : v)),
    original: [1, 0, 3, 2].flatMap(point),
  };
}
