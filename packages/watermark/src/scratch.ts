/**
 * Typed arrays kept from one embedRaw call to the next. A fresh large typed array is zero pages the
 * kernel maps on first touch: on the reference machine that costs ~0.7 ms per MB, ten times writing
 * memory already mapped, and an embed used to allocate ~10 MB of short-lived planes per call (mask
 * grid, JND strips, pattern). Those planes have the same few sizes call after call, so they are
 * reused instead.
 *
 * Rules: each Scratch belongs to one synchronous function (embedRaw, canonicalPattern), so a buffer
 * is never used by two calls at once; a slot holds one buffer (the largest length asked for), so
 * memory stays bounded by the largest mask grid (~10 MB in all at L = 512); contents are arbitrary on
 * return (callers overwrite or clear); nothing from here may be returned to a caller.
 */
export class Scratch {
  private readonly f32 = new Map<string, Float32Array<ArrayBuffer>>();
  private readonly f64 = new Map<string, Float64Array<ArrayBuffer>>();

  /** A Float32Array of length n for `slot`, contents arbitrary. */
  float32(slot: string, n: number): Float32Array<ArrayBuffer> {
    return take(this.f32, slot, n, (m) => new Float32Array(m));
  }

  /** A Float64Array of length n for `slot`, contents arbitrary. */
  float64(slot: string, n: number): Float64Array<ArrayBuffer> {
    return take(this.f64, slot, n, (m) => new Float64Array(m));
  }
}

/** The slot's buffer (grown to n if shorter), viewed at length n. */
function take<T extends Float32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(
  slots: Map<string, T>,
  slot: string,
  n: number,
  make: (n: number) => T,
): T {
  let a = slots.get(slot);
  if (!a || a.length < n) {
    a = make(n);
    slots.set(slot, a);
  }
  return a.length === n ? a : (a.subarray(0, n) as T);
}

/** Fresh arrays: for callers outside embedRaw, which must not share buffers. */
export const FRESH = {
  float32: (_slot: string, n: number): Float32Array<ArrayBuffer> => new Float32Array(n),
  float64: (_slot: string, n: number): Float64Array<ArrayBuffer> => new Float64Array(n),
};

export type Allocator = Pick<Scratch, 'float32' | 'float64'>;
