/**
 * SHA-256 of an image's decoded pixels, so that metadata-only edits (EXIF, ICC, XMP, re-saving a
 * PNG with other compression) keep the hash. Samples are hashed as decoded, little-endian for 16-bit.
 */
import { createHash, type Hash } from 'node:crypto';
import type { RawImage } from '@filigrane/vision';

export function pixelHash(raw: RawImage): Buffer {
  const hasher = pixelHasher(raw);
  while (!hasher.update(Infinity));
  return hasher.digest();
}

/**
 * pixelHash in steps (the same digest): `update(bytes)` hashes up to that many more bytes of samples and
 * returns true once all are hashed, so the hash can fill the waits for the codec (idle-work.ts).
 */
export function pixelHasher(raw: RawImage): { update(bytes: number): boolean; digest(): Buffer } {
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
    return whole(hash.update(le));
  }
  let done = 0;
  return {
    update(n: number): boolean {
      const end = Math.min(bytes.length, done + n);
      if (end > done) hash.update(bytes.subarray(done, end));
      done = end;
      return done === bytes.length;
    },
    digest: () => {
      if (done !== bytes.length) throw new Error('pixelHasher: digest before every sample was hashed');
      return hash.digest();
    },
  };
}

/** A hasher already fed everything. */
function whole(hash: Hash): { update(bytes: number): boolean; digest(): Buffer } {
  return { update: () => true, digest: () => hash.digest() };
}
