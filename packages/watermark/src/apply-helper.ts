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
  data: Uint8Array;
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
    `parentPort.on('message', (m) => {`,
    `  try { parentPort.postMessage({ sse: ${applyBandRgb8.name}(m.data, m.out, m.band, m.y0, m.y1) }); }`,
    `  catch (err) { parentPort.postMessage({ error: String(err && err.message || err) }); }`,
    `});`,
  ].join('\n');
}

export class ApplyHelper {
  private readonly worker: Worker;
  private pending?: { resolve: (sse: number) => void; reject: (err: Error) => void };
  private failed = false;

  constructor() {
    this.worker = new Worker(workerSource(), { eval: true });
    this.worker.unref(); // never keeps the process alive by itself
    this.worker.on('message', (m: { sse?: number; error?: string }) => {
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

/** A Uint8Array over shared memory holding a copy of `a` (or `a` itself when already shared). */
export function sharedCopy(a: Uint8Array): Uint8Array {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const s = new Uint8Array(new SharedArrayBuffer(a.byteLength));
  s.set(a);
  return s;
}
