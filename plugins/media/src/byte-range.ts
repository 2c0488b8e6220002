import { ApiError, type ByteRange } from '@filigrane/core';

/**
 * The byte range a Range header asks of a file of `size` bytes (RFC 9110 §14), for players that seek
 * in a video: null for the whole file (no range, a malformed one or several ranges, as the RFC
 * allows); a range past the end is 416 (its Content-Range gives the size).
 */
export function byteRange(size: number, range: string | string[] | undefined): ByteRange | null {
  const m = typeof range === 'string' ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    // A suffix: the last N bytes.
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null; // invalid: ignored
  }
  if (start >= size || size === 0) {
    throw new ApiError(416, 'range_not_satisfiable', `The file has ${size} bytes.`, undefined, { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' });
  }
  return { start, end };
}
