// Runs in a worker thread (embed-runner.ts): the embedding and the sealing of the registration
// file, the CPU-heavy part of a watermarking, away from the event loop that serves requests.
import { parentPort } from 'node:worker_threads';
import { embed, encodeLmk, generateKey, type Registration } from '@filigrane/watermark';

export interface EmbedTask {
  original: Uint8Array;
  publicKeyDer: Uint8Array;
  maxPixels: number;
}

export type EmbedReply = { ok: true; image: Uint8Array; lmk: Uint8Array } | { ok: false; message: string; code?: string };

const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

parentPort?.once('message', async (task: EmbedTask) => {
  try {
    // A fresh 256-bit key per image; it never leaves this thread except sealed in the .lmk.
    // No nested apply helper: EmbedRunner already runs one embedding per spare core, and leaves the
    // last one to the event loop.
    // Sealed while libvips codes and verifies the output (embed's `seal`).
    const seal = (r: Registration): Buffer => encodeLmk(r, buf(task.publicKeyDer));
    const result = await embed(buf(task.original), generateKey(), { maxPixels: task.maxPixels, seal });
    const lmk = result.sealed ?? seal(result.registration);
    parentPort!.postMessage({ ok: true, image: result.image, lmk } satisfies EmbedReply);
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error).message, code: (err as { code?: string }).code } satisfies EmbedReply);
  }
});
