import { mkdirSync, symlinkSync, readlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type { OcrEngine } from './pdf-extraction.js';

type Worker = Awaited<ReturnType<typeof import('tesseract.js')['createWorker']>>;

/**
 * One folder holding the English and French data of the npm packages (tesseract.js takes a single
 * `langPath`): symbolic links, so nothing is downloaded or copied.
 */
function languageFolder(): string {
  const folder = join(tmpdir(), 'filigrane-tessdata-4.0.0');
  mkdirSync(folder, { recursive: true });
  for (const lang of ['eng', 'fra']) {
    const target = join(folder, `${lang}.traineddata.gz`);
    const source = join(dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`)), '4.0.0', `${lang}.traineddata.gz`);
    // A link left by another install (since moved or deleted) points elsewhere: replace it.
    if (currentLink(target) === source) continue;
    try {
      unlinkSync(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    try {
      symlinkSync(source, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || currentLink(target) !== source) throw err;
    }
  }
  return folder;
}

function currentLink(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** Longest side given to OCR: print at ~200 dpi is enough for credit lines, and bounds the time. */
const OCR_MAX_SIDE = 2400;

/** One page image's OCR (worker start included) takes seconds; a minute means the engine is stuck. */
const OCR_TIME_LIMIT_MS = 60_000;

/** tesseract.js (WASM, English + French from npm) behind the extraction's OCR interface; one worker, lazily. */
export class TesseractOcr implements OcrEngine {
  private worker: Promise<Worker> | null = null;

  private get(): Promise<Worker> {
    this.worker ??= (async () => {
      const { createWorker, OEM } = await import('tesseract.js');
      // tesseract.js never settles createWorker when the language data fails to load; its error
      // handler is the only signal, so it rejects the creation here.
      let failed!: (err: Error) => void;
      const failure = new Promise<never>((_, reject) => (failed = reject));
      const onError = (data: unknown) => failed(new Error(`OCR engine: ${String(data)}`));
      const creating = createWorker(['eng', 'fra'], OEM.LSTM_ONLY, { langPath: languageFolder(), gzip: true, cacheMethod: 'none', logger: () => undefined, errorHandler: onError });
      try {
        return await Promise.race([creating, failure]);
      } catch (err) {
        this.worker = null;
        void creating.then((w) => w.terminate()).catch(() => undefined);
        throw err;
      }
    })();
    return this.worker;
  }

  async lines(image: Buffer): Promise<{ text: string; x: number; y: number; width: number; height: number }[]> {
    const meta = await sharp(image).metadata();
    const w = meta.width ?? 0;
    const h = meta.height ?? 0;
    if (!w || !h) return [];
    const scale = Math.min(1, OCR_MAX_SIDE / Math.max(w, h));
    const png = await sharp(image).greyscale().resize(Math.round(w * scale), Math.round(h * scale)).png({ compressionLevel: 1 }).toBuffer();
    const { data } = await this.withinLimit(async () => {
      const worker = await this.get();
      // Tesseract's own diagnostics ("Line cannot be recognized") go to its null device, not our stdout.
      return worker.recognize(png, { debug_file: '/dev/null' } as never, { blocks: true, text: false });
    });
    const out: { text: string; x: number; y: number; width: number; height: number }[] = [];
    for (const block of data.blocks ?? []) {
      for (const para of block.paragraphs) {
        for (const line of para.lines) {
          const text = line.text.replace(/\s+/g, ' ').trim();
          if (!text || line.confidence < 40) continue;
          const b = line.bbox;
          out.push({ text, x: b.x0 / scale, y: b.y0 / scale, width: (b.x1 - b.x0) / scale, height: (b.y1 - b.y0) / scale });
        }
      }
    }
    return out;
  }

  /** A stuck engine must not hold a press issue: past the limit the worker is dropped (a new one next time). */
  private async withinLimit<T>(work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(new Error(`OCR took longer than ${OCR_TIME_LIMIT_MS / 1000} s`));
      }, OCR_TIME_LIMIT_MS);
    });
    try {
      return await Promise.race([work(), limit]);
    } catch (err) {
      if (expired) void this.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    // A worker that never finished starting is terminated whenever it does; closing does not wait on it.
    const terminated = w.then((worker) => worker.terminate()).catch(() => undefined);
    await Promise.race([terminated, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }
}
