/**
 * SHA-256 of an image's decoded pixels, so that metadata-only edits (EXIF, ICC, XMP, re-saving a
 * PNG with other compression) keep the hash. Samples are hashed as decoded, little-endian for 16-bit.
 */
import { createHash } from 'node:crypto';
import type { RawImage } from '@filigrane/vision';

export function pixelHash(raw: RawImage): Buffer {
  const header = Buffer.alloc(16);
  header.write('FLPX', 0, 'latin1');
  header.writeUInt32LE(raw.width, 4);
  header.writeUInt32LE(raw.height, 8);
  header.writeUInt8(raw.channels, 12);
  header.writeUInt8(raw.depth, 13);
  const hash = createHash('sha256').update(header);
  const bytes = new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength);
  if (raw.depth === 16 && new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
    // Big-endian host: hash the little-endian byte order the format specifies.
    const le = Buffer.alloc(bytes.length);
    for (let i = 0; i < raw.data.length; i++) le.writeUInt16LE(raw.data[i], 2 * i);
    return hash.update(le).digest();
  }
  return hash.update(bytes).digest();
}
