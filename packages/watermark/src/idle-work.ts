/**
 * Main-thread work that has no deadline until the end of an embedding (the pixel hash, the reduced
 * original), done in slices while libvips codes on its own thread: `during(p)` runs slices until p
 * settles, turning the event loop between slices so that the codec's completion is seen within one
 * slice. The thread then never idles while work is pending, nor makes the codec's result wait long.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';

/** One slice of a job per call; true when the job is finished. */
export type Slice = () => boolean;

export class IdleWork {
  private readonly jobs: Slice[] = [];
  /** Time spent in slices so far. */
  ms = 0;

  add(job: Slice): void {
    this.jobs.push(job);
  }

  /** Runs slices while `p` is pending; resolves (or rejects) as p does. */
  async during<T>(p: Promise<T>): Promise<T> {
    let settled = false;
    p.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled && this.jobs.length) {
      this.slice();
      await setImmediate();
    }
    return p;
  }

  /** Finishes every job now. */
  finish(): void {
    while (this.jobs.length) this.slice();
  }

  private slice(): void {
    const t = performance.now();
    if (this.jobs[0]()) this.jobs.shift();
    this.ms += performance.now() - t;
  }
}
