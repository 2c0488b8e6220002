import { randomBytes } from 'node:crypto';
import { InvalidMediaKeyError } from './errors';

/** A media key: 256 random bits, one per watermarked copy (IMATAG-style, like a one-time pad). */
export type MediaKey = Buffer;

export const MEDIA_KEY_BYTES = 32;

export function generateKey(): MediaKey {
  return randomBytes(MEDIA_KEY_BYTES);
}

export function assertMediaKey(key: Uint8Array): asserts key is Buffer {
  if (!(key instanceof Uint8Array) || key.length !== MEDIA_KEY_BYTES) throw new InvalidMediaKeyError();
}
