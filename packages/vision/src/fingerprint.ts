/**
 * What the visual index stores per media, computed from the canonical 512-px luminance grid (the
 * reduced copy of a registration file, or the same grid computed from a plain image): ORB features
 * for crop-robust retrieval and validation, and a 64-bit difference hash plus a 16x16 thumbnail for
 * the exact-copy fast path.
 */
import { AreaReducer, areaReduce } from './area-reduce';
import { decodeRaw, probeImage, type DecodeLimits } from './decode';
import { lumaRow, toGray8 } from './luma';
import { fingerprintPool } from './fingerprint-pool';
import { computeOrbFeatures, type OrbFeatures } from './orb';
import type { PreparedQuery } from './query';

/** Long side of the canonical grid (the watermark's canonical size: reduced copies already use it). */
export const INDEX_GRID = 512;
/** ORB features kept per original: the design note's 500 found every 50%-area crop. */
export const REFERENCE_FEATURES = 500;
/** ORB features of a query (on its own 512-px proxy): more than the reference so that a crop still finds enough. */
export const QUERY_FEATURES = 1000;
/** Side of the fast-path thumbnail. */
export const THUMB_SIDE = 16;

export interface LumaGrid {
  /** 0..255 luminance, row-major. */
  luma: Float32Array;
  width: number;
  height: number;
}

export interface VisualFingerprint {
  features: OrbFeatures;
  /** 64-bit difference hash (8 bytes) of a 9x8 reduction. */
  dhash: Uint8Array;
  /** 16x16 luminance, 0..255, for confirming a dHash hit. */
  thumb: Uint8Array;
  /** Aspect ratio width / height of the grid. */
  aspect: number;
}

export interface FingerprintOptions {
  /**
   * FAST corner threshold of ORB (default 5). Video frames use a higher one: the 500 features kept
   * are the strongest corners either way, and far fewer candidates are scored (half the time).
   */
  fastThreshold?: number;
  /** Features kept (default REFERENCE_FEATURES; a query keeps QUERY_FEATURES). */
  maxFeatures?: number;
}

const gridSize = (w: number, h: number, long: number) => {
  const s = Math.min(1, long / Math.max(w, h));
  return { width: Math.max(1, Math.round(w * s)), height: Math.max(1, Math.round(h * s)) };
};

/**
 * The canonical grid of an image file, by exact area averaging row by row (as embedding does), so a
 * plain image is indexed at the same scale as a registration file's reduced copy.
 */
export async function canonicalLuma(bytes: Uint8Array, limits: DecodeLimits = {}): Promise<LumaGrid> {
  const info = await probeImage(bytes, limits);
  const raw = await decodeRaw(bytes, info, limits);
  const { width, height } = gridSize(raw.width, raw.height, INDEX_GRID);
  const row = new Float32Array(raw.width);
  if (width === raw.width && height === raw.height) {
    const luma = new Float32Array(width * height);
    for (let y = 0; y < height; y++) lumaRow(raw, y, luma.subarray(y * width, (y + 1) * width));
    return { luma, width, height };
  }
  const reducer = new AreaReducer(raw.width, raw.height, width, height);
  for (let y = 0; y < raw.height; y++) {
    lumaRow(raw, y, row);
    reducer.push(row);
  }
  return { luma: reducer.result(), width, height };
}

/** Difference hash: bit (y, x) = left pixel brighter than its right neighbour on a 9x8 reduction. */
export function dHash64(grid: LumaGrid): Uint8Array {
  const small = areaReduce(grid.luma, grid.width, grid.height, Math.min(9, grid.width), Math.min(8, grid.height));
  const w = Math.min(9, grid.width);
  const out = new Uint8Array(8);
  for (let y = 0; y < Math.min(8, grid.height); y++) {
    for (let x = 0; x < 8 && x + 1 < w; x++) if (small[y * w + x] > small[y * w + x + 1]) out[y] |= 1 << x;
  }
  return out;
}

export function thumbnail16(grid: LumaGrid): Uint8Array {
  const w = Math.min(THUMB_SIDE, grid.width);
  const h = Math.min(THUMB_SIDE, grid.height);
  const t = toGray8(areaReduce(grid.luma, grid.width, grid.height, w, h));
  if (w === THUMB_SIDE && h === THUMB_SIDE) return t;
  const out = new Uint8Array(THUMB_SIDE * THUMB_SIDE);
  out.set(t.subarray(0, Math.min(t.length, out.length)));
  return out;
}

export function hamming64(a: Uint8Array, b: Uint8Array): number {
  let d = 0;
  for (let i = 0; i < 8; i++) {
    let x = a[i] ^ b[i];
    while (x) {
      x &= x - 1;
      d++;
    }
  }
  return d;
}

/**
 * Are two thumbnails the same picture? Pearson correlation >= 0.98 and mean absolute difference
 * <= 12 grey levels: survives re-encoding, mild colour changes and small resizes, but not a crop.
 */
export function sameThumbnail(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  let ma = 0, mb = 0, mad = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]; mb += b[i]; mad += Math.abs(a[i] - b[i]);
  }
  ma /= n; mb /= n;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i] - ma, db = b[i] - mb;
    sab += da * db; saa += da * da; sbb += db * db;
  }
  // A flat thumbnail carries no evidence of identity at all: never an exact match.
  if (saa < n * 4 || sbb < n * 4) return false;
  return sab / Math.sqrt(saa * sbb) >= 0.98 && mad / n <= 12;
}

/** Everything the index stores for one original, from its canonical grid. */
export async function fingerprintGrid(grid: LumaGrid, options: FingerprintOptions = {}): Promise<VisualFingerprint> {
  const gray = toGray8(grid.luma);
  const maxFeatures = options.maxFeatures ?? REFERENCE_FEATURES;
  let features = await computeOrbFeatures(gray, grid.width, grid.height, { maxFeatures, fastThreshold: options.fastThreshold });
  // A feature-poor (dark, flat) frame under a high threshold: the default threshold finds what there is.
  if (options.fastThreshold !== undefined && features.count < maxFeatures / 2) {
    features = await computeOrbFeatures(gray, grid.width, grid.height, { maxFeatures });
  }
  return { features, dhash: dHash64(grid), thumb: thumbnail16(grid), aspect: grid.width / grid.height };
}

const queryFingerprints = new WeakMap<PreparedQuery, Promise<VisualFingerprint>>();

/**
 * The query's fingerprint, computed once per PreparedQuery: its proxy is area-reduced to the
 * canonical size (so an uncropped copy is analysed at the scale of the reference) and ORB runs
 * with QUERY_FEATURES; the 4000-feature ORB of the full proxy stays reserved for detection.
 */
/** Size of the grid queryFingerprint analyses for `query` (its proxy, area-reduced to the canonical size). */
export function queryGridSize(query: PreparedQuery): { width: number; height: number } {
  return gridSize(query.image.width, query.image.height, INDEX_GRID);
}

export function queryFingerprint(query: PreparedQuery, options: { threaded?: boolean } = {}): Promise<VisualFingerprint> {
  let f = queryFingerprints.get(query);
  if (!f) {
    const { luma, width, height } = query.image;
    const size = queryGridSize(query);
    const grid = { luma: areaReduce(luma, width, height, size.width, size.height), ...size };
    const gray = toGray8(grid.luma);
    // Threaded: ORB runs in a fingerprint thread (the same OpenCV on the same bytes, the same
    // features), leaving this thread free for the database's answers meanwhile.
    const features = options.threaded
      ? fingerprintPool()
          .fingerprint({ luma: gray, ...size }, { maxFeatures: QUERY_FEATURES })
          .then((fp) => fp.features, () => computeOrbFeatures(gray, grid.width, grid.height, { maxFeatures: QUERY_FEATURES }))
      : computeOrbFeatures(gray, grid.width, grid.height, { maxFeatures: QUERY_FEATURES });
    f = (async () => ({
      features: await features,
      dhash: dHash64(grid),
      thumb: thumbnail16(grid),
      aspect: grid.width / grid.height,
    }))();
    queryFingerprints.set(query, f);
  }
  return f;
}
