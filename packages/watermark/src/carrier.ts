/**
 * The secret carrier: n iid N(0,1) values from AES-256-CTR keyed by the media key. The p-value is
 * exact only because this vector is uniform on the sphere and unpredictable without the key.
 */
import { createCipheriv } from 'node:crypto';
import { assertMediaKey } from './key';

// Fixed 16-byte IV: one carrier per key. A second layer would use another IV (domain separation).
const IV = Buffer.from('filigrane/band/1', 'latin1');

export function gaussianCarrier(key: Uint8Array, n: number): Float64Array {
  assertMediaKey(key);
  const pairs = Math.ceil(n / 2);
  const cipher = createCipheriv('aes-256-ctr', key, IV);
  const stream = cipher.update(Buffer.alloc(pairs * 8));
  cipher.final();
  const out = new Float64Array(n);
  const TWO_PI = 2 * Math.PI;
  for (let i = 0; i < pairs; i++) {
    // Little-endian 32-bit words; (w + 0.5) / 2^32 lies strictly inside (0, 1): log never sees 0.
    const u1 = (stream.readUInt32LE(8 * i) + 0.5) / 4294967296;
    const u2 = (stream.readUInt32LE(8 * i + 4) + 0.5) / 4294967296;
    const r = Math.sqrt(-2 * Math.log(u1));
    out[2 * i] = r * Math.cos(TWO_PI * u2);
    if (2 * i + 1 < n) out[2 * i + 1] = r * Math.sin(TWO_PI * u2);
  }
  return out;
}
