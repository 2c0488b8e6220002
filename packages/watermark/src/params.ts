/** Embedding parameters: stored in every registration file so that later releases can still detect. */

export const ALGORITHM_VERSION = 1;

export interface EmbeddingParams {
  /** Algorithm revision (carrier derivation, band ordering, pattern upsampling). */
  algorithm: number;
  /** Canonical long side L. */
  canonicalSize: number;
  /** Canonical grid actually used: min(native, L) on the long side. */
  gridWidth: number;
  gridHeight: number;
  /** Radial band of the full-frame DCT, in cycles per canonical pixel. */
  bandLow: number;
  bandHigh: number;
  /** Cap of the JND luminance-adaptation term (grey levels). */
  laCap: number;
  targetPsnr: number;
  /** PSNR actually reached on the pixels (before the output codec). */
  psnr: number;
}

export const DEFAULTS = {
  canonicalSize: 512,
  bandLow: 0.02,
  bandHigh: 0.12,
  laCap: 5,
  targetPsnr: 44,
} as const;

/** Canonical grid of a W x H image: the long side brought down to L, never upscaled. */
export function canonicalGrid(width: number, height: number, L: number): { gridWidth: number; gridHeight: number } {
  const s = Math.min(1, L / Math.max(width, height));
  return { gridWidth: Math.max(1, Math.round(width * s)), gridHeight: Math.max(1, Math.round(height * s)) };
}
