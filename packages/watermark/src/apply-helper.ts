/**
 * A second thread for embed()'s apply pass (issue 18, requirement 6): the pass is the largest
 * JavaScript cost of an embedding, and libvips leaves the other core idle meanwhile. The worker is
 * started from source text (the self-contained kernels of apply-rows.ts), not from a file, so it
 * runs unchanged in the bundled single executable. It computes the lower band of rows into shared
 * memory while this thread does the upper one; any failure falls back to this thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { addRowRgb8, applyBandRgb8, clipRgb, deltaRow, type ApplyBand } from './apply-rows';

/** Below this many pixels a second thread is not worth its start-up. */
export const SPLIT_MIN_PIXELS = 4_000_000;

interface Job {
  /** The original rows; absent when `out` holds them and is marked in place. */
  data?: Uint8Array;
  out: Uint8Array;
  band: ApplyBand;
  y0: number;
  y1: number;
}

function workerSource(): string {
  // Names as they are in this build (a bundler may rename functions; their bodies follow).
  return [
    `'use strict';`,
    `const { parentPort } = require('node:worker_threads');`,
    clipRgb.toString(),
    addRowRgb8.toString(),
    deltaRow.toString(),
    applyBandRgb8.toString(),
    warmUp.toString(),
    // Compiled while the main thread waits for the decoder: a cold first band ran up to 2x slower.
    `try { ${warmUp.name}(${applyBandRgb8.name}); } catch {}`,
    `parentPort.on('message', (m) => {`,
    `  const t = performance.now();`,
    `  try { const sse = ${applyBandRgb8.name}(m.data ?? m.out, m.out, m.band, m.y0, m.y1); parentPort.postMessage({ sse, ms: performance.now() - t }); }`,
    `  catch (err) { parentPort.postMessage({ error: String(err && err.message || err) }); }`,
    `});`,
  ].join('\n');
}

/**
 * Runs the band kernel on a small synthetic band (shared memory, 3 channels, as real jobs) until V8
 * has optimised it. Self-contained: it runs in the worker from its source text.
 */
export function warmUp(kernel: typeof applyBandRgb8): void {
  const W = 640, rows = 24, w0 = 90, h0 = 6, channels = 3;
  const data = new Uint8Array(new SharedArrayBuffer(W * rows * channels));
  const out = new Uint8Array(new SharedArrayBuffer(data.length));
  for (let i = 0; i < data.length; i++) data[i] = (i * 37) & 255;
  const q = new Float32Array(w0 * h0);
  for (let i = 0; i < q.length; i++) q[i] = Math.sin(i);
  const colI0 = new Int32Array(W), colF = new Float32Array(W), rowI0 = new Int32Array(rows), rowF = new Float32Array(rows);
  for (let x = 0; x < W; x++) {
    colI0[x] = Math.min(w0 - 2, Math.floor((x * w0) / W));
    colF[x] = ((x * w0) / W) % 1;
  }
  for (let y = 0; y < rows; y++) rowI0[y] = Math.min(h0 - 2, Math.floor((y * h0) / rows));
  for (let i = 0; i < 60; i++) kernel(data, out, { q, w0, h0, W, channels, colI0, colF, rowI0, rowF, a: 1.5 + (i % 3) }, 0, rows);
}

export class ApplyHelper {
  private readonly worker: Worker;
  private pending?: { resolve: (sse: number) => void; reject: (err: Error) => void };
  /** The worker's time for its last band, ms (profiling). */
  lastMs = 0;
  private failed = false;

  constructor() {
    this.worker = new Worker(workerSource(), { eval: true });
    this.worker.unref(); // never keeps the process alive by itself
    this.worker.on('message', (m: { sse?: number; ms?: number; error?: string }) => {
      this.lastMs = m.ms ?? 0;
      const p = this.pending;
      this.pending = undefined;
      this.worker.unref();
      if (m.error !== undefined || m.sse === undefined) p?.reject(new Error(m.error ?? 'no result'));
      else p?.resolve(m.sse);
    });
    const fail = (err: Error): void => {
      this.failed = true;
      const p = this.pending;
      this.pending = undefined;
      p?.reject(err);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`apply helper exited with code ${code}`)));
  }

  get usable(): boolean {
    return !this.failed && this.pending === undefined;
  }

  run(job: Job): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(new Error('apply helper unavailable'));
      this.pending = { resolve, reject };
      this.worker.ref();
      this.worker.postMessage(job);
    });
  }

  close(): void {
    void this.worker.terminate();
  }
}

/** A helper when a second core exists and the image is large enough, else undefined. */
export function startApplyHelper(pixels: number): ApplyHelper | undefined {
  if (pixels < SPLIT_MIN_PIXELS || availableParallelism() < 2) return undefined;
  try {
    return new ApplyHelper();
  } catch {
    return undefined;
  }
}

/** A copy of `a` in shared memory (always a copy: the caller may mark it in place). */
export function sharedCopy(a: Uint8Array): Uint8Array {
  const s = new Uint8Array(new SharedArrayBuffer(a.byteLength));
  s.set(a);
  return s;
}
