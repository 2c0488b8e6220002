// Runs in a worker thread (fingerprint-pool.ts): ORB of one frame after another, away from the event
// loop, so several frames of a video are described at once on several cores.
import { parentPort } from 'node:worker_threads';
import { fingerprintGrid, type FingerprintOptions, type VisualFingerprint } from './fingerprint';

export interface FingerprintTask {
  id: number;
  /** 8-bit luma, row-major. */
  luma: Uint8Array;
  width: number;
  height: number;
  options: FingerprintOptions;
}

export type FingerprintReply = { id: number; ok: true; fingerprint: VisualFingerprint } | { id: number; ok: false; message: string };

parentPort?.on('message', async (task: FingerprintTask) => {
  try {
    const fingerprint = await fingerprintGrid({ luma: Float32Array.from(task.luma), width: task.width, height: task.height }, task.options);
    parentPort!.postMessage({ id: task.id, ok: true, fingerprint } satisfies FingerprintReply);
  } catch (err) {
    parentPort!.postMessage({ id: task.id, ok: false, message: (err as Error).message } satisfies FingerprintReply);
  }
});
