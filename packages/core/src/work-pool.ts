import { availableParallelism } from 'node:os';
import { ApiError } from './errors.js';

/**
 * Bounds the CPU- and memory-heavy work requests start (image decodes, fingerprints, searches by
 * image): `size` run at once, `queue` more wait; beyond that a request is refused at once with
 * 503 and Retry-After rather than piling decodes up (a 40 MP 16-bit image is ~320 MB decoded).
 * Background jobs pass `wait: true`: they queue without bound (pg-boss bounds them).
 */
export class WorkPool {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly size = Math.max(1, availableParallelism()),
    readonly queue = 4 * Math.max(1, availableParallelism()),
    private readonly retryAfterSeconds = 5,
  ) {}

  async run<T>(work: () => Promise<T>, options: { wait?: boolean } = {}): Promise<T> {
    if (this.active >= this.size) {
      if (!options.wait && this.waiting.length >= this.queue) {
        throw new ApiError(503, 'busy', `The server is busy with other images; retry in ${this.retryAfterSeconds} seconds.`, undefined, {
          'retry-after': String(this.retryAfterSeconds),
        });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
