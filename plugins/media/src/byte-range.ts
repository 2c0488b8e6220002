import { ApiError, type RouteResponse } from '@filigrane/core';

/**
 * A file answered with HTTP Range support (RFC 9110 §14), for players that seek in a video: one
 * byte range gives 206 with Content-Range; no range, a malformed one or several ranges give the
 * whole file (200, as the RFC allows); a range past the end is 416 (its Content-Range gives the size).
 */
export function rangedFile(data: Buffer, contentType: string, range: string | string[] | undefined): RouteResponse {
  const size = data.length;
  const whole: RouteResponse = { status: 200, body: data, contentType, headers: { 'accept-ranges': 'bytes' } };
  const m = typeof range === 'string' ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return whole;
  let start: number;
  let end: number;
  if (m[1] === '') {
    // A suffix: the last N bytes.
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return whole; // invalid: ignored
  }
  if (start >= size || size === 0) {
    throw new ApiError(416, 'range_not_satisfiable', `The file has ${size} bytes.`, undefined, { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' });
  }
  return {
    status: 206,
    body: data.subarray(start, end + 1),
    contentType,
    headers: { 'accept-ranges': 'bytes', 'content-range': `bytes ${start}-${end}/${size}` },
  };
}
