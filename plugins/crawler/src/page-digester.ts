import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FetchedResource } from '@filigrane/net';
import type { ExtractedPage } from './html-extract.js';
import { digest, type DigestReply, type DigestTask } from './page-digest.worker.js';

export interface Digested {
  /** The request and response as gzipped WARC records. */
  records: Buffer;
  /** The parsed page when asked (null when not HTML), or why it could not be read. */
  page: ExtractedPage | null;
  pageError: string | null;
}

/**
 * Hands the WARC records and the HTML parsing of each fetch to one long-lived worker thread, so
 * the crawl uses a second core; in the calling thread when the worker cannot start. The worker
 * does not keep the process alive.
 */
export class PageDigester {
  private worker: Worker | null = null;
  private failed = false;
  private seq = 0;
  private readonly pending = new Map<number, { resolve(d: Digested): void; reject(err: Error): void }>();

  async digest(res: FetchedResource, date: Date, html: boolean): Promise<Digested> {
    const worker = this.start();
    if (!worker) return digest({ res, date: date.getTime(), html });
    const id = ++this.seq;
    return new Promise<Digested>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const task: DigestTask = { id, res: { ...res, body: res.body }, date: date.getTime(), html };
      worker.postMessage(task);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  private start(): Worker | null {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(join(__dirname, 'page-digest.worker.js'));
      worker.unref();
      worker.on('message', (reply: DigestReply) => {
        const p = this.pending.get(reply.id);
        if (!p) return;
        this.pending.delete(reply.id);
        if (reply.ok) p.resolve({ records: Buffer.from(reply.records.buffer, reply.records.byteOffset, reply.records.byteLength), page: reply.page, pageError: reply.pageError });
        else p.reject(new Error(reply.message));
      });
      const fail = (err: Error) => {
        if (this.worker === worker) this.worker = null;
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the page digest worker exited with code ${code}`)));
      this.worker = worker;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }
}
