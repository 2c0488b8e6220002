/** What a registration file carries, in memory (lmk-format.ts writes and reads it). */
import type { ImageFormat } from '@filigrane/vision';
import type { EmbeddingParams } from './params';

/** The pre-watermark luminance at the canonical grid, in 1/256 grey levels. */
export interface ReducedOriginal {
  width: number;
  height: number;
  luma: Uint16Array;
}

export type RegistrationMode = 'normal' | 'transactional';

export interface Registration {
  mode: RegistrationMode;
  /** The 256-bit media key. */
  key: Buffer;
  /** SHA-256 of the original's decoded pixels. */
  pixelHash: Buffer;
  params: EmbeddingParams;
  original: { width: number; height: number; format: ImageFormat | 'raw' };
  /** Present in normal registrations only; transactional detection borrows it from the first one. */
  reduced?: ReducedOriginal;
}

/** 0..255 float plane of a reduced original. */
export function reducedToFloat(reduced: ReducedOriginal): Float32Array {
  const out = new Float32Array(reduced.luma.length);
  for (let i = 0; i < out.length; i++) out[i] = reduced.luma[i] / 256;
  return out;
}

export function floatToReduced(plane: Float32Array, width: number, height: number): ReducedOriginal {
  const luma = new Uint16Array(plane.length);
  for (let i = 0; i < plane.length; i++) {
    const v = Math.round(plane[i] * 256);
    luma[i] = v < 0 ? 0 : v > 65535 ? 65535 : v;
  }
  return { width, height, luma };
}
