import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DocumentError } from './document-error.js';
import type { ExtractOptions } from './pdf-document.js';
import { DEFAULT_LIMITS, type ExtractedPage } from './pdf-model.js';
import type { CallerMessage, WorkerMessage } from './pdf-extraction.worker.js';

/** Past the document's own time limit (checked between pages), a page still running is stopped. */
const STUCK_GRACE_MS = 60_000;
/** pdf.js's JavaScript heap in the worker: a document needing more fails alone, not the process. */
const WORKER_HEAP_MB = 2048;

const toBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** Buffers arrive as Uint8Arrays from the worker: the page as `extractPdf` yields it. */
function revive(page: ExtractedPage): ExtractedPage {
  return { ...page, images: page.images.map((im) => ({ ...im, bytes: toBuffer(im.bytes) })) };
}

/**
 * `extractPdf` in a worker thread of its own, page by page (the worker extracts a page once the
 * previous one was taken), so pdf.js's parsing and decoding never hold the event loop. OCR runs
 * here with the caller's engine. The worker is ended when the pages are done, on error, when the
 * caller stops early, and when a page outlasts the document's time limit (pdf.js cannot be
 * interrupted within a page otherwise).
 */
export async function* extractPdfInWorker(data: Buffer, options: ExtractOptions = {}): AsyncGenerator<ExtractedPage> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const worker = new Worker(join(__dirname, 'pdf-extraction.worker.js'), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  const inbox: WorkerMessage[] = [];
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  const send = (m: CallerMessage) => worker.postMessage(m);
  worker.on('message', (m: WorkerMessage) => {
    if (m.type === 'ocr') {
      // Answered whenever it is done; the worker waits for it.
      const ocr = options.ocr;
      if (!ocr) send({ type: 'ocr', id: m.id, lines: [] });
      else ocr.lines(toBuffer(m.image)).then((lines) => send({ type: 'ocr', id: m.id, lines }), (err: Error) => send({ type: 'ocr', id: m.id, error: err.message }));
      return;
    }
    inbox.push(m);
    notify();
  });
  worker.on('error', (err: Error & { code?: string }) => {
    failure ??= err.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? new DocumentError('pdf_too_complex', `The document needs more than ${WORKER_HEAP_MB} MiB of memory to be read.`)
      : err;
    notify();
  });
  worker.on('exit', () => {
    failure ??= new Error('the PDF extraction worker stopped');
    notify();
  });
  const timer = setTimeout(() => {
    failure ??= new DocumentError('timeout', `The analysis took longer than ${Math.round(limits.timeoutMs / 1000)} s.`);
    void worker.terminate();
  }, limits.timeoutMs + STUCK_GRACE_MS);
  try {
    send({ type: 'task', task: { data, limits: options.limits ?? {}, ocr: Boolean(options.ocr) } });
    for (;;) {
      const m = inbox.shift();
      if (!m) {
        if (failure) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if (m.type === 'done') return;
      if (m.type === 'error') throw m.code ? new DocumentError(m.code, m.message) : new Error(m.message);
      if (m.type === 'start') {
        await options.onStart?.(m.pageCount);
        send({ type: 'started' });
      } else if (m.type === 'page') {
        yield revive(m.page);
        send({ type: 'next' });
      }
    }
  } finally {
    clearTimeout(timer);
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
