/**
 * The two-thread apply pass: the helper's band (run in a worker from source text) and this thread's
 * band together write the bytes and squared error that the single-threaded row kernels do.
 */
import test from 'ava';
import { ApplyHelper, sharedCopy } from '../src/apply-helper';
import { addRowRgb8, applyBandRgb8, deltaRow } from '../src/apply-rows';
import { PlaneUpsampler } from '../src/pattern';

function reference(data: Uint8Array, W: number, H: number, channels: number, up: PlaneUpsampler, a: number): { out: Uint8Array; sse: number } {
  const out = new Uint8Array(data.length);
  const delta = new Int32Array(W);
  let sse = 0;
  for (let y = 0; y < H; y++) {
    deltaRow(delta, W, up.source(y), up.columns.i0, up.columns.f, a);
    sse += addRowRgb8(data, out, y * W * channels, W, channels, delta);
  }
  return { out, sse };
}

for (const channels of [3, 4]) {
  test(`split apply equals the single-threaded kernels (${channels} channels)`, async (t) => {
    const W = 301;
    const H = 203;
    const data = new Uint8Array(W * H * channels);
    let seed = 7;
    for (let i = 0; i < data.length; i++) data[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    const w0 = 37;
    const h0 = 25;
    const q = new Float32Array(w0 * h0).map((_, i) => Math.sin(i * 0.37) * 3);
    const up = new PlaneUpsampler(q, w0, h0, W, H);
    const a = 2.3; // large enough that some samples clip
    const ref = reference(data, W, H, channels, up, a);
    const split = 97;
    const cut = split * W * channels;
    const out = new Uint8Array(new SharedArrayBuffer(data.length));
    const band = { ...up.parts(), W, channels, a };
    const helper = new ApplyHelper();
    try {
      const lower = helper.run({ data: sharedCopy(data.subarray(cut)), out: out.subarray(cut), band, y0: split, y1: H });
      const sse = applyBandRgb8(data, out, band, 0, split) + (await lower);
      t.is(sse, ref.sse);
      t.true(Buffer.from(out).equals(Buffer.from(ref.out)));
      t.true(ref.sse > 0);
      // In place, as embed() runs it: one shared copy of the original, marked by both threads.
      const shared = sharedCopy(data);
      const lowerInPlace = helper.run({ out: shared.subarray(cut), band, y0: split, y1: H });
      const sseInPlace = applyBandRgb8(shared, shared, band, 0, split) + (await lowerInPlace);
      t.is(sseInPlace, ref.sse);
      t.true(Buffer.from(shared).equals(Buffer.from(ref.out)));
      t.false(Buffer.from(shared).equals(Buffer.from(data)));
    } finally {
      helper.close();
    }
  });
}
