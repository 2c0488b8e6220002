import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EmbedReply, EmbedTask } from './embed.worker.js';

/** An error from the worker, with the typed code (unsupported_format, corrupt_image, ...) kept for mediaApiError. */
class EmbedError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

/**
 * Embeds in worker threads, at most `size` at once (the others wait their turn): one large image
 * no longer stalls every request the process serves. One thread per task, ended with it, so the
 * memory of a 40 MP embed is returned at once.
 */
export class EmbedRunner {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size = Math.max(1, availableParallelism() - 1)) {}

  async run(task: EmbedTask): Promise<{ image: Buffer; lmk: Buffer }> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await this.inWorker(task);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private inWorker(task: EmbedTask): Promise<{ image: Buffer; lmk: Buffer }> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(join(__dirname, 'embed.worker.js'));
      let settled = false;
      worker.once('message', (reply: EmbedReply) => {
        settled = true;
        void worker.terminate();
        if (reply.ok) resolve({ image: Buffer.from(reply.image.buffer, reply.image.byteOffset, reply.image.byteLength), lmk: Buffer.from(reply.lmk.buffer, reply.lmk.byteOffset, reply.lmk.byteLength) });
        else reject(new EmbedError(reply.message, reply.code));
      });
      worker.once('error', (err) => {
        if (!settled) reject(err);
      });
      worker.once('exit', (code) => {
        if (!settled) reject(new Error(`the embed worker exited with code ${code}`));
      });
      worker.postMessage(task);
    });
  }
}
