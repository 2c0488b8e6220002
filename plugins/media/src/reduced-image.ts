import { getSharp } from '@filigrane/vision';
import type { ReducedOriginal } from '@filigrane/watermark';

const MAGIC = 'FRED';

/** The reduced original as stored in the blob store: magic, width, height, 16-bit luma (LE). */
export function encodeReduced(r: ReducedOriginal): Buffer {
  const out = Buffer.alloc(8 + r.luma.length * 2);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt16LE(r.width, 4);
  out.writeUInt16LE(r.height, 6);
  for (let i = 0; i < r.luma.length; i++) out.writeUInt16LE(r.luma[i]!, 8 + 2 * i);
  return out;
}

export function decodeReduced(data: Buffer): ReducedOriginal {
  if (data.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a reduced original');
  const width = data.readUInt16LE(4);
  const height = data.readUInt16LE(6);
  const luma = new Uint16Array(width * height);
  for (let i = 0; i < luma.length; i++) luma[i] = data.readUInt16LE(8 + 2 * i);
  return { width, height, luma };
}

/** 8-bit grey pixels of a reduced original (its luma is in 1/256 grey levels). */
function grey8(r: ReducedOriginal): Buffer {
  const out = Buffer.alloc(r.luma.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.min(255, Math.round(r.luma[i]! / 256));
  return out;
}

export const THUMBNAIL_SIZE = 256;

/** Thumbnail (JPEG, 256 px box) and preview (PNG) of a registration file's reduced copy. */
export async function renderReduced(r: ReducedOriginal): Promise<{ thumbnail: Buffer; preview: Buffer }> {
  const sharp = getSharp();
  const raw = { raw: { width: r.width, height: r.height, channels: 1 as const } };
  const pixels = grey8(r);
  const [thumbnail, preview] = await Promise.all([
    sharp(pixels, raw).resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer(),
    sharp(pixels, raw).png().toBuffer(),
  ]);
  return { thumbnail, preview };
}

/** Thumbnail of an image file (bytes already probed and bounded by the caller). */
export async function renderThumbnail(bytes: Buffer): Promise<Buffer> {
  return getSharp()(bytes, { limitInputPixels: 100_000_000 })
    .rotate()
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80 })
    .toBuffer();
}
