/** BT.601 luminance on the 0..255 scale, whatever the bit depth and channel layout. */
import type { RawImage } from './decode';

export const LUMA_R = 0.299;
export const LUMA_G = 0.587;
export const LUMA_B = 0.114;

/** Writes the luminance of row `y` of `raw` into `out` (length >= width). Alpha is ignored. */
export function lumaRow(raw: RawImage, y: number, out: Float32Array): void {
  const { data, width, channels } = raw;
  const scale = raw.depth === 16 ? 1 / 257 : 1;
  let p = y * width * channels;
  if (channels <= 2) {
    for (let x = 0; x < width; x++, p += channels) out[x] = data[p] * scale;
    return;
  }
  const r = LUMA_R * scale;
  const g = LUMA_G * scale;
  const b = LUMA_B * scale;
  for (let x = 0; x < width; x++, p += channels) out[x] = r * data[p] + g * data[p + 1] + b * data[p + 2];
}

/** Whole-image luminance plane (for images already at analysis size). */
export function lumaPlane(raw: RawImage): Float32Array {
  const out = new Float32Array(raw.width * raw.height);
  for (let y = 0; y < raw.height; y++) lumaRow(raw, y, out.subarray(y * raw.width, (y + 1) * raw.width));
  return out;
}

/** Rounds and clamps a 0..255 float plane to bytes (ORB and other 8-bit consumers). */
export function toGray8(plane: Float32Array): Uint8Array {
  const out = new Uint8Array(plane.length);
  for (let i = 0; i < plane.length; i++) out[i] = plane[i] < 0 ? 0 : plane[i] > 255 ? 255 : Math.round(plane[i]);
  return out;
}
