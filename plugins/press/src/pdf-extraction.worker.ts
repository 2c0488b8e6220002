// Runs in a worker thread (pdf-extraction-runner.ts): pdf.js parses and decodes on the thread it
// runs on, and a page with a 36 MP picture held the event loop that serves requests for a second.
// OCR and progress go back to the caller's thread (tesseract.js has its own workers there).
import { parentPort } from 'node:worker_threads';
import { DocumentError } from './document-error.js';
import { extractPdf } from './pdf-document.js';
import type { ExtractedPage, ExtractionLimits, OcrEngine } from './pdf-model.js';

export interface ExtractionTask {
  data: Uint8Array;
  limits: Partial<ExtractionLimits>;
  ocr: boolean;
}

type OcrLines = Awaited<ReturnType<OcrEngine['lines']>>;

/** From the worker. */
export type WorkerMessage =
  | { type: 'page'; page: ExtractedPage }
  | { type: 'start'; pageCount: number }
  | { type: 'ocr'; id: number; image: Uint8Array }
  | { type: 'done' }
  | { type: 'error'; message: string; code?: string };

/** To the worker. */
export type CallerMessage =
  | { type: 'task'; task: ExtractionTask }
  | { type: 'next' }
  | { type: 'started' }
  | { type: 'ocr'; id: number; lines?: OcrLines; error?: string };

const port = parentPort!;
const pending = new Map<number, { resolve: (l: OcrLines) => void; reject: (e: Error) => void }>();
let nextId = 0;
let wake: (() => void) | null = null;
const waitFor = () => new Promise<void>((resolve) => (wake = resolve));

const ocr: OcrEngine = {
  lines: (image) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      port.postMessage({ type: 'ocr', id, image } satisfies WorkerMessage);
    }),
};

async function run(task: ExtractionTask): Promise<void> {
  try {
    const pages = extractPdf(Buffer.from(task.data.buffer, task.data.byteOffset, task.data.byteLength), {
      limits: task.limits,
      ocr: task.ocr ? ocr : null,
      onStart: async (pageCount) => {
        port.postMessage({ type: 'start', pageCount } satisfies WorkerMessage);
        await waitFor();
      },
    });
    // One page at a time: the next is extracted once the caller asks for it.
    for await (const page of pages) {
      port.postMessage({ type: 'page', page } satisfies WorkerMessage);
      await waitFor();
    }
    port.postMessage({ type: 'done' } satisfies WorkerMessage);
  } catch (err) {
    port.postMessage({ type: 'error', message: (err as Error).message, code: err instanceof DocumentError ? err.code : undefined } satisfies WorkerMessage);
  }
}

port.on('message', (m: CallerMessage) => {
  if (m.type === 'task') void run(m.task);
  else if (m.type === 'ocr') {
    const call = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) call?.reject(new Error(m.error));
    else call?.resolve(m.lines ?? []);
  } else {
    const resume = wake;
    wake = null;
    resume?.();
  }
});
