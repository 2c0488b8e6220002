/**
 * The full-resolution passes of embedding in WebAssembly with SIMD (assembly/kernels.ts, compiled into
 * kernels-wasm.ts): the apply pass and the squared error of two images, about 3x faster than the
 * JavaScript kernels of apply-rows.ts, which stay as their reference and as the fallback where
 * WebAssembly SIMD is unavailable. Same arithmetic, so the same bytes either way. Images are streamed
 * through a window of the module's memory, which therefore stays a few MB whatever the image size.
 */
import { boundaryTable, LUMA_B, LUMA_G, LUMA_R, overlapTable, sseRgb8 as sseRgb8Js } from '@filigrane/vision';
import { applyBandRgb8, type ApplyBand } from './apply-rows';
import { KERNELS_WASM } from './kernels-wasm';

// The engine's WebAssembly global, as far as used here (@types/node 20 does not declare it; lib "dom" would bring the rest of the browser).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
};

interface KernelExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  applyRows(
    data: number,
    out: number,
    W: number,
    channels: number,
    y0: number,
    y1: number,
    q: number,
    w0: number,
    h0: number,
    colI0: number,
    colF: number,
    rowI0: number,
    rowF: number,
    a: number,
    srow: number,
    drow: number,
  ): number;
  sseRgb8(x: number, y: number, n: number, channels: number): number;
  lumaPrefixRows(data: number, W: number, channels: number, rows: number, prefix: number, R: number, G: number, B: number): void;
  jndMask(
    Y: number, w: number, h: number, blur: number, strip: number, laTable: number, cmLut: number,
    h3: number, h5: number, sm: number, df: number, J: number, acc: number, col: number, out: number,
  ): void;
  lowpassPattern(
    coef: number, out: number, out32: number, w: number, h: number, rowsFirst: number, kx1: number, ky1: number, kxFrom: number, kxTo: number,
    basis: number, twRe: number, twIm: number, rev: number, cosT: number, sinT: number, E: number, O: number, re: number, im: number, ta: number, tb: number,
  ): void;
  histogramSquares(counts: number, bins: number, half: number, a: number, step: number, integer: number): number;
  areaPushRows(
    prefix: number, stride: number, rows: number, w: number, at: number, frac: number, cell: number, weight: number,
    y: number, open: number, bufA: number, bufB: number, out: number, area: number,
  ): number;
  areaFlush(open: number, w: number, bufA: number, bufB: number, out: number, area: number): number;
  shapePlane(mask: number, wm: number, hm: number, p: number, w0: number, h0: number, colI0: number, colF: number, rowI0: number, rowF: number, srow: number): number;
  shapedHistogram(
    q: number, wm: number, hm: number, colI0: number, colF: number, rowI0: number, rowF: number,
    W: number, H: number, y0: number, step: number, k: number, half: number, counts: number, srow: number,
  ): number;
}

/** Samples streamed through the module per call. */
const WINDOW_BYTES = 1 << 19;
/** Below this offset the module may keep its own data (it has none today). */
const BASE = 1 << 16;

const align = (n: number): number => Math.ceil(n / 16) * 16;

let loaded: KernelExports | null | undefined;
let compiled: object | undefined;

/** The instantiated module, or null where this engine has no WebAssembly SIMD. */
function kernels(): KernelExports | null {
  if (loaded === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(KERNELS_WASM, 'base64'));
      loaded = new WebAssembly.Instance(compiled, {}).exports as unknown as KernelExports;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** Another instance of the module, with a memory of its own (for state kept between calls), or null. */
function ownKernels(): KernelExports | null {
  if (!kernels()) return null;
  return new WebAssembly.Instance(compiled!, {}).exports as unknown as KernelExports;
}

/** True when the WebAssembly kernels run here (else the JavaScript ones do). */
export function wasmKernelsAvailable(): boolean {
  return kernels() !== null;
}

/** Grows the module's memory to `bytes` and returns a view of all of it (views die when memory grows). */
function memoryOf(k: KernelExports, bytes: number): Uint8Array {
  const have = k.memory.buffer.byteLength;
  if (have < bytes) k.memory.grow(Math.ceil((bytes - have) / 65536));
  return new Uint8Array(k.memory.buffer);
}

const bytesOf = (a: Int32Array | Float32Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Where the last band's plane and tables were copied, so the passes of one embedding copy them once. */
let placed: (Placement & { window: number }) | undefined;

/**
 * applyBandRgb8 (same contract, same bytes): rows y0..y1 of the apply pass over 8-bit RGB(A) samples;
 * `data` and `out` hold row y0 at their start and may be the same array. Returns the sum of squared
 * differences of the colour channels. When `out` is in an image of kernelImage, it is marked in place.
 */
export function applyBand(data: Uint8Array, out: Uint8Array, band: ApplyBand, y0: number, y1: number): number {
  const k = kernels();
  if (!k) return applyBandRgb8(data, out, band, y0, y1);
  const heldSum = applyHeld(data, out, band, y0, y1);
  if (heldSum !== undefined) return heldSum;
  const { W, channels, w0, h0, a } = band;
  const rowBytes = W * channels;
  const rows = Math.max(1, Math.floor(WINDOW_BYTES / rowBytes));
  let mem: Uint8Array;
  if (!placed || !sameTables(placed.band, band)) {
    const p = layout(band);
    mem = memoryOf(k, p.end + align(rows * rowBytes));
    placeTables(mem, p);
    placed = { ...p, window: p.end };
  } else {
    mem = new Uint8Array(k.memory.buffer);
  }
  const p = placed;
  let sse = 0;
  for (let y = y0; y < y1; y += rows) {
    const end = Math.min(y1, y + rows);
    const from = (y - y0) * rowBytes;
    const n = (end - y) * rowBytes;
    mem.set(data.subarray(from, from + n), p.window);
    sse += k.applyRows(p.window, p.window, W, channels, y, end, p.q, w0, h0, p.colI0, p.colF, p.rowI0, p.rowF, a, p.srow, p.drow);
    out.set(mem.subarray(p.window, p.window + n), from);
  }
  return sse;
}

/** The apply tables' offsets in a module's memory. */
interface Placement {
  band: ApplyBand;
  q: number;
  colI0: number;
  colF: number;
  rowI0: number;
  rowF: number;
  srow: number;
  drow: number;
  end: number;
}

/** Lays out `band`'s plane, tables and row scratch from BASE (the offsets, and the first free one as `end`). */
function layout(band: ApplyBand): Placement {
  let at = BASE;
  const take = (bytes: number): number => {
    const o = at;
    at += align(bytes);
    return o;
  };
  const p = {
    band,
    q: take(band.q.byteLength),
    colI0: take(band.colI0.byteLength),
    colF: take(band.colF.byteLength),
    rowI0: take(band.rowI0.byteLength),
    rowF: take(band.rowF.byteLength),
    srow: take(4 * (band.w0 + 1)),
    drow: take(2 * band.W * band.channels),
  };
  return { ...p, end: at };
}

/** Copies the plane and tables of `p.band` to their offsets. */
function placeTables(mem: Uint8Array, p: Placement): void {
  const { band } = p;
  mem.set(bytesOf(band.q), p.q);
  mem.set(bytesOf(band.colI0), p.colI0);
  mem.set(bytesOf(band.colF), p.colF);
  mem.set(bytesOf(band.rowI0), p.rowI0);
  mem.set(bytesOf(band.rowF), p.rowF);
}

/** Images held in the memory of a module instance of their own (kernelImage), by that memory's buffer. */
const held = new WeakMap<ArrayBufferLike, { k: KernelExports; room: number; placed?: Placement }>();

/**
 * A zeroed array of `length` bytes in the memory of a module instance of its own, with room before it for
 * the tables of `band` (the gain is not used): applyBand writes such an `out` in place, with one copy of
 * the original's rows into it instead of a copy in and a copy out through the window (~20 ms of copying
 * per 54 MB image). The instance's memory never grows again, so the array stays valid for as long as
 * it is referenced. Undefined where this engine has no WebAssembly SIMD.
 */
export function kernelImage(length: number, band: Omit<ApplyBand, 'a'>): Uint8Array | undefined {
  const k = ownKernels();
  if (!k) return undefined;
  const room = layout({ ...band, a: 0 }).end;
  // 16 bytes of slack after the image: no kernel reads past its end, but none may trap there either.
  const mem = memoryOf(k, room + align(length) + 16);
  held.set(mem.buffer, { k, room });
  return new Uint8Array(mem.buffer, room, length);
}

/** applyBand into an image of kernelImage, in place (its sum of squared differences); undefined when `out` is not one, or its room does not fit these tables. */
function applyHeld(data: Uint8Array, out: Uint8Array, band: ApplyBand, y0: number, y1: number): number | undefined {
  const h = held.get(out.buffer);
  if (!h) return undefined;
  const { k } = h;
  const mem = new Uint8Array(k.memory.buffer);
  if (!h.placed || !sameTables(h.placed.band, band)) {
    const p = layout(band);
    if (p.end > h.room) return undefined;
    placeTables(mem, p);
    h.placed = p;
  }
  const p = h.placed;
  const { W, channels, w0, h0, a } = band;
  const rowBytes = W * channels;
  // Strips of the window's size: each is copied then marked while it is still in the cache.
  const rows = Math.max(1, Math.floor(WINDOW_BYTES / rowBytes));
  const inPlace = data.buffer === out.buffer && data.byteOffset === out.byteOffset;
  let sum = 0;
  for (let y = y0; y < y1; y += rows) {
    const end = Math.min(y1, y + rows);
    const from = (y - y0) * rowBytes;
    const at = out.byteOffset + from;
    if (!inPlace) mem.set(data.subarray(from, from + (end - y) * rowBytes), at);
    sum += k.applyRows(at, at, W, channels, y, end, p.q, w0, h0, p.colI0, p.colF, p.rowI0, p.rowF, a, p.srow, p.drow);
  }
  return sum;
}

/** Same plane and tables (the gain may differ: it is passed on each call). */
function sameTables(x: ApplyBand, y: ApplyBand): boolean {
  return x.q === y.q && x.colI0 === y.colI0 && x.colF === y.colF && x.rowI0 === y.rowI0 && x.rowF === y.rowF && x.W === y.W && x.channels === y.channels;
}

/** Sum of squared differences of the colour channels of two 8-bit RGB(A) sample arrays of one length. */
export function sseRgb8(x: Uint8Array, y: Uint8Array, channels: number): number {
  if (x.length !== y.length) throw new Error(`sseRgb8: ${x.length} vs ${y.length} samples`);
  const k = kernels();
  if (!k) return sseRgb8Js(x, y, channels);
  // Whole pixels per window, so the module's alpha mask stays in phase.
  const window = Math.floor(WINDOW_BYTES / (4 * channels)) * 4 * channels;
  const mem = memoryOf(k, BASE + 2 * window);
  const a = BASE;
  const b = BASE + window;
  placed = undefined;
  let sse = 0;
  for (let o = 0; o < x.length; o += window) {
    const n = Math.min(window, x.length - o);
    mem.set(x.subarray(o, o + n), a);
    mem.set(y.subarray(o, o + n), b);
    sse += k.sseRgb8(a, b, n, channels);
  }
  return sse;
}

/**
 * Calls `each(prefix)` for each row of 8-bit RGB(A) samples, in order, with the row's luminance prefix
 * sums: prefix[0] = 0, prefix[x + 1] = prefix[x] + f32(R * red + G * green + B * blue) (W + 1 values;
 * the array is only valid during the call).
 */
export function lumaPrefixRows(data: Uint8Array, W: number, H: number, channels: number, each: (prefix: Float64Array) => void): void {
  const k = kernels();
  if (!k) {
    const prefix = new Float64Array(W + 1);
    for (let y = 0; y < H; y++) {
      lumaPrefixRgb8(data, y * W * channels, W, channels, prefix);
      each(prefix);
    }
    return;
  }
  const rowBytes = W * channels;
  const prefixBytes = (W + 1) * 8;
  const rows = Math.max(1, Math.floor(WINDOW_BYTES / rowBytes));
  // The kernel reads up to 16 bytes past the window's last row.
  const window = BASE;
  const prefixAt = BASE + align(rows * rowBytes + 16);
  const mem = memoryOf(k, prefixAt + rows * prefixBytes);
  placed = undefined;
  const sums = new Float64Array(mem.buffer, prefixAt, rows * (W + 1));
  for (let y = 0; y < H; y += rows) {
    const n = Math.min(rows, H - y);
    mem.set(data.subarray(y * rowBytes, (y + n) * rowBytes), window);
    k.lumaPrefixRows(window, W, channels, n, prefixAt, LUMA_R, LUMA_G, LUMA_B);
    for (let r = 0; r < n; r++) each(sums.subarray(r * (W + 1), (r + 1) * (W + 1)));
  }
}

/** A grid the luminance is area-averaged to (lumaAreaReducer); `out` receives it (a new array by default). */
export interface AreaGrid {
  width: number;
  height: number;
  out?: Float32Array;
}

/** Rows of 8-bit RGB(A) samples in, the luminance area-averaged to each grid out (see lumaAreaReducer). */
export interface LumaAreaReducer {
  /** Adds the next `rows` source rows, held at the start of `data` (rows come in order, 0..H-1). */
  push(data: Uint8Array, rows: number): void;
  /** The reduced planes, one per grid, once all H rows were pushed. */
  results(): Float32Array[];
}

/**
 * The luminance of a W x H 8-bit RGB(A) image area-averaged to one or more grids: lumaPrefixRows' prefix
 * sums fed to @filigrane/vision's AreaReducer, done in WebAssembly (the same arithmetic in the same order,
 * so the same floats), on a module instance of its own so that its running sums survive the other
 * kernels' calls between pushes (the reduced original is made in slices between them). The JavaScript
 * reducer ran cold in a fresh process (~40 ms for 17.9 MP against ~10 warm). Undefined where this
 * engine has no WebAssembly SIMD (the caller then feeds AreaReducer).
 */
export function lumaAreaReducer(W: number, H: number, channels: number, grids: AreaGrid[]): LumaAreaReducer | undefined {
  for (const g of grids) if (g.width > W || g.height > H) throw new RangeError('AreaReducer only downscales');
  const k = ownKernels();
  if (!k) return undefined;
  const rowBytes = W * channels;
  const rowsPer = Math.max(1, Math.floor(WINDOW_BYTES / rowBytes));
  const stride = (W + 1) * 8;
  let at = BASE;
  const take = (bytes: number): number => {
    const o = at;
    at += align(bytes);
    return o;
  };
  // The prefix kernel reads up to 16 bytes past the window's last row.
  const window = take(rowsPer * rowBytes + 16);
  const prefix = take(rowsPer * stride);
  const tables = grids.map((g) => {
    const cols = boundaryTable(W, g.width);
    const rows = overlapTable(H, g.height);
    const t = { g, cols, rows, at: take(cols.at.byteLength), frac: take(cols.frac.byteLength), cell: take(rows.cell.byteLength), weight: take(rows.weight.byteLength) };
    return { ...t, bufA: take(8 * g.width), bufB: take(8 * g.width), out: take(4 * g.width * g.height), area: (W / g.width) * (H / g.height), open: 0 };
  });
  const mem = memoryOf(k, at);
  for (const t of tables) {
    mem.set(bytesOf(t.cols.at), t.at);
    mem.set(new Uint8Array(t.cols.frac.buffer), t.frac);
    mem.set(bytesOf(t.rows.cell), t.cell);
    mem.set(bytesOf(t.rows.weight), t.weight);
  }
  let y = 0;
  return {
    push(data: Uint8Array, rows: number): void {
      if (y + rows > H) throw new Error(`lumaAreaReducer: ${y + rows}/${H} rows pushed`);
      const m = new Uint8Array(k.memory.buffer);
      for (let r = 0; r < rows; r += rowsPer) {
        const n = Math.min(rowsPer, rows - r);
        m.set(data.subarray(r * rowBytes, (r + n) * rowBytes), window);
        k.lumaPrefixRows(window, W, channels, n, prefix, LUMA_R, LUMA_G, LUMA_B);
        for (const t of tables) t.open = k.areaPushRows(prefix, stride, n, t.g.width, t.at, t.frac, t.cell, t.weight, y, t.open, t.bufA, t.bufB, t.out, t.area);
        y += n;
      }
    },
    results(): Float32Array[] {
      if (y !== H) throw new Error(`AreaReducer: ${y}/${H} rows pushed`);
      return tables.map((t) => {
        while (t.open < t.g.height) t.open = k.areaFlush(t.open, t.g.width, t.bufA, t.bufB, t.out, t.area);
        const plane = new Float32Array(k.memory.buffer, t.out, t.g.width * t.g.height);
        const out = t.g.out ?? new Float32Array(plane.length);
        if (out.length !== plane.length) throw new RangeError('AreaReducer output has the wrong length');
        out.set(plane);
        return out;
      });
    },
  };
}

/** The JavaScript definition of one row of lumaPrefixRows, from sample p. */
export function lumaPrefixRgb8(data: Uint8Array, p: number, n: number, channels: number, prefix: Float64Array): void {
  // Locals: the imported constants are getters on the module object in compiled CommonJS.
  const r = LUMA_R;
  const g = LUMA_G;
  const b = LUMA_B;
  let s = 0;
  prefix[0] = 0;
  for (let x = 0; x < n; x++, p += channels) {
    s += Math.fround(r * data[p] + g * data[p + 1] + b * data[p + 2]);
    prefix[x + 1] = s;
  }
}

/**
 * The blurred JND mask (jnd.ts's jndMask, same arithmetic and strips, so the same floats) of the w x h
 * luma plane given by rows, into `out`; false where this engine has no WebAssembly SIMD (the caller
 * then runs the JavaScript). The whole plane sits in the module's memory: the mask grid is small.
 */
export function jndMaskWasm(
  w: number,
  h: number,
  source: (y: number, out: Float32Array) => void,
  blur: number,
  strip: number,
  laTable: Float32Array,
  cmLut: Float32Array,
  out: Float32Array,
): boolean {
  const k = kernels();
  if (!k) return false;
  const plane = align(4 * w * h);
  let at = BASE;
  const take = (bytes: number): number => {
    const o = at;
    at += align(bytes);
    return o;
  };
  const [Y, h3, h5, sm, df, J, mask] = Array.from({ length: 7 }, () => take(plane));
  const acc = take(8 * (w + 1));
  const col = take(8 * w);
  const la = take(laTable.byteLength);
  const cm = take(cmLut.byteLength);
  const mem = memoryOf(k, at);
  placed = undefined;
  mem.set(bytesOf(laTable), la);
  mem.set(bytesOf(cmLut), cm);
  for (let y = 0; y < h; y++) source(y, new Float32Array(mem.buffer, Y + 4 * y * w, w));
  k.jndMask(Y, w, h, blur, strip, la, cm, h3, h5, sm, df, J, acc, col, mask);
  out.set(new Float32Array(mem.buffer, mask, w * h));
  return true;
}

/** A small plane and its bilinear tables (PlaneUpsampler.parts()). */
export interface UpsampledPlane {
  q: Float32Array;
  w0: number;
  h0: number;
  colI0: Int32Array;
  colF: Float32Array;
  rowI0: Int32Array;
  rowF: Float32Array;
}

/** Copies `arrays` after BASE in the module's memory; returns their offsets and the first free one. */
function place(k: KernelExports, arrays: (Int32Array | Float32Array | Uint32Array | Float64Array)[], scratch: number): { at: number[]; free: number; mem: Uint8Array } {
  let o = BASE;
  const at = arrays.map((a) => {
    const here = o;
    o += align(a.byteLength);
    return here;
  });
  const mem = memoryOf(k, o + align(scratch));
  placed = undefined;
  arrays.forEach((a, i) => mem.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at[i]));
  return { at, free: o, mem };
}

/**
 * M * P on the mask grid (embed.ts shapedPlane, same floats): `mask` (wm x hm) times the plane `up.q`
 * upsampled to wm x hm by up's tables, into a new array; with the largest |value|. Undefined where this
 * engine has no WebAssembly SIMD (the caller then runs the JavaScript).
 */
export function shapePlaneWasm(mask: Float32Array, wm: number, hm: number, up: UpsampledPlane): { plane: Float32Array; bound: number } | undefined {
  const k = kernels();
  if (!k) return undefined;
  const { at, free, mem } = place(k, [mask, up.q, up.colI0, up.colF, up.rowI0, up.rowF], 4 * (up.w0 + 1));
  const bound = k.shapePlane(at[0], wm, hm, at[1], up.w0, up.h0, at[2], at[3], at[4], at[5], free);
  return { plane: new Float32Array(mem.buffer.slice(at[0], at[0] + 4 * wm * hm)), bound };
}

/**
 * ShapedHistogram.addRow (embed.ts, same bins) for rows y0, y0 + step, ... < H of the plane `up.q`
 * upsampled to W x H by up's tables: bin half + round(v * scale) of `counts` for every pixel. Returns the
 * number of rows added, or undefined where this engine has no WebAssembly SIMD.
 */
export function shapedHistogramWasm(up: UpsampledPlane, W: number, H: number, y0: number, step: number, scale: number, counts: Uint32Array): number | undefined {
  const k = kernels();
  if (!k) return undefined;
  const { at, free, mem } = place(k, [up.q, up.colI0, up.colF, up.rowI0, up.rowF, counts], 4 * (up.w0 + 1));
  const rows = k.shapedHistogram(at[0], up.w0, up.h0, at[1], at[2], at[3], at[4], W, H, y0, step, scale, counts.length / 2, at[5], free);
  counts.set(new Uint32Array(mem.buffer, at[5], counts.length));
  return rows;
}

/** The inverse DCT's plan and tables (dct.ts LowpassIdct.parts(), dctTwiddles and fft.ts radix2Tables of its FFT side). */
export interface LowpassTables {
  w: number;
  h: number;
  rowsFirst: boolean;
  kx1: number;
  ky1: number;
  kxFrom: Int32Array;
  kxTo: Int32Array;
  basis: Float64Array;
  twRe: Float64Array;
  twIm: Float64Array;
  rev: Uint32Array;
  cos: Float64Array;
  sin: Float64Array;
}

/**
 * The keyed pattern's inverse DCT and unit-RMS scaling (pattern.ts canonicalPattern after the carrier:
 * LowpassIdct.run, sum of squares, scale to float32), the same floats, into `out`. False where this
 * engine has no WebAssembly SIMD (the caller then runs the JavaScript). The FFT side must be a power of two.
 */
export function lowpassPatternWasm(t: LowpassTables, coef: Float64Array, out: Float32Array): boolean {
  const k = kernels();
  if (!k) return false;
  const { w, h } = t;
  const n = t.rowsFirst ? h : w;
  const e = Math.max(t.kx1, (w + 1) >> 1);
  const scratch = [8 * w * h, 8 * e, 8 * e, 8 * n, 8 * n, 8 * n, 8 * n].map(align);
  const { at, free, mem } = place(k, [coef, t.kxFrom, t.kxTo, t.basis, t.twRe, t.twIm, t.rev, t.cos, t.sin, out], scratch.reduce((a, b) => a + b, 0));
  const s: number[] = [];
  scratch.reduce((o, bytes) => (s.push(o), o + bytes), free);
  const [coefAt, kxFrom, kxTo, basis, twRe, twIm, rev, cosT, sinT, out32] = at;
  k.lowpassPattern(coefAt, s[0], out32, w, h, t.rowsFirst ? 1 : 0, t.kx1, t.ky1, kxFrom, kxTo, basis, twRe, twIm, rev, cosT, sinT, s[1], s[2], s[3], s[4], s[5], s[6]);
  out.set(new Float32Array(mem.buffer, out32, w * h));
  return true;
}

/**
 * ShapedHistogram.meanSquare's sum of squares (embed.ts, same order, so the same float): over the bins i
 * with a count c, c * e * e with e = a * (i - half) * step, rounded as Math.round when `integer`.
 * Undefined where this engine has no WebAssembly SIMD.
 */
export function histogramSquaresWasm(counts: Uint32Array, a: number, step: number, integer: boolean): number | undefined {
  const k = kernels();
  if (!k) return undefined;
  const { at } = place(k, [counts], 0);
  return k.histogramSquares(at[0], counts.length, counts.length / 2, a, step, integer ? 1 : 0);
}
