import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FingerprintOptions, VisualFingerprint } from './fingerprint';
import type { FingerprintReply, FingerprintTask } from './fingerprint.worker';

interface Pending {
  resolve: (fp: VisualFingerprint) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * Fingerprints of 8-bit luma frames (video frames) computed by a few long-lived worker threads, each
 * with its own OpenCV: a video's frames are described in parallel while the event loop only stores
 * them. Threads start on first use and never keep the process alive; a thread that dies fails its
 * own tasks only and is replaced on the next one.
 */
export class FingerprintPool {
  private readonly slots: (Slot | null)[];
  private nextId = 1;

  constructor(size = Math.max(1, availableParallelism())) {
    this.slots = new Array<Slot | null>(size).fill(null);
  }

  /** Threads the pool runs at most (one per core by default). */
  get size(): number {
    return this.slots.length;
  }

  fingerprint(frame: { luma: Uint8Array; width: number; height: number }, options: FingerprintOptions = {}): Promise<VisualFingerprint> {
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise<VisualFingerprint>((resolve, reject) => {
      // A thread holds the process open only while it has work (idle threads never block an exit).
      if (slot.pending.size === 0) slot.worker.ref();
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, luma: frame.luma, width: frame.width, height: frame.height, options } satisfies FingerprintTask);
    });
  }

  async close(): Promise<void> {
    const running = this.slots.filter((s): s is Slot => s !== null);
    this.slots.fill(null);
    await Promise.all(running.map((s) => s.worker.terminate()));
  }

  private leastBusy(): Slot {
    let best = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const s = this.slots[i];
      if (!s) {
        best = i;
        break;
      }
      if (best < 0 || s.pending.size < this.slots[best]!.pending.size) best = i;
    }
    return (this.slots[best] ??= this.start(best));
  }

  private start(index: number): Slot {
    const worker = new Worker(join(__dirname, 'fingerprint.worker.js'));
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (reply: FingerprintReply) => {
      const p = slot.pending.get(reply.id);
      if (!p) return;
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) slot.worker.unref();
      if (reply.ok) p.resolve(reply.fingerprint);
      else p.reject(new Error(reply.message));
    });
    const fail = (err: Error) => {
      if (this.slots[index] === slot) this.slots[index] = null;
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the fingerprint worker exited with code ${code}`)));
    return slot;
  }
}

let shared: FingerprintPool | null = null;
/** The process's pool (one OpenCV per core, whatever number of plugins use it). */
export const fingerprintPool = (): FingerprintPool => (shared ??= new FingerprintPool());

/** Frames a video pipeline describes at once: one per fingerprint thread and one being decoded. */
export const framesInFlight = (): number => fingerprintPool().size + 1;
