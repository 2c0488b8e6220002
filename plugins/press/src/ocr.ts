import { mkdirSync, symlinkSync, readlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { looksLikeCredit } from './credit-lines.js';
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

/**
 * Scans are read at about 250 dpi: a page's longer side is brought to 3,000 px (an A4 page at
 * 256 dpi), enlarged at most twice. Credit lines are printed in 5.5 to 7 pt: at 150 dpi their
 * letters are 6 to 8 px high, too small for the recogniser (measured: docs/press.md); 300 dpi
 * (3,500 px) read no better and took over three minutes a page on a loaded machine.
 */
const OCR_TARGET_SIDE = 3000;
const OCR_MAX_ENLARGEMENT = 2;
/** Lines read on the page turned a quarter (credits printed up a photo's edge) must be this sure. */
const ROTATED_MIN_CONFIDENCE = 70;

type OcrLine = { text: string; x: number; y: number; width: number; height: number; angle?: number };

/**
 * One reading of a page (worker start included) takes seconds to tens of seconds at 300 dpi on a
 * loaded machine; three minutes means the engine is stuck.
 */
const OCR_TIME_LIMIT_MS = 180_000;

/** How scans are read; the defaults are the service's, other values serve the benchmark's comparison. */
export interface OcrOptions {
  /** Longer side a page is brought to (default 3,000 px). */
  targetSide?: number;
  /** Largest enlargement (default 2; 1 never enlarges). */
  maxEnlargement?: number;
  /** Read the page turned a quarter when no credit reads upright (default true). */
  turnedPass?: boolean;
}

/** tesseract.js (WASM, English + French from npm) behind the extraction's OCR interface; one worker, lazily. */
export class TesseractOcr implements OcrEngine {
  private worker: Promise<Worker> | null = null;

  constructor(private readonly options: OcrOptions = {}) {}

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

  /**
   * The page read upright; when no line there reads like a credit, read again turned a quarter
   * clockwise, for a credit printed up the edge of a photo (the usual way in the press), keeping
   * only the sure credit-like lines of that pass.
   */
  async lines(image: Buffer): Promise<OcrLine[]> {
    const meta = await sharp(image).metadata();
    const w = meta.width ?? 0;
    const h = meta.height ?? 0;
    if (!w || !h) return [];
    const scale = Math.min(this.options.maxEnlargement ?? OCR_MAX_ENLARGEMENT, (this.options.targetSide ?? OCR_TARGET_SIDE) / Math.max(w, h));
    const sw = Math.round(w * scale);
    const sh = Math.round(h * scale);
    const page = await sharp(image).greyscale().resize(sw, sh, { kernel: 'cubic' }).raw().toBuffer();
    const raw = { raw: { width: sw, height: sh, channels: 1 as const } };
    const upright = await this.read(await sharp(page, raw).png({ compressionLevel: 1 }).toBuffer(), 40);
    const out: OcrLine[] = upright.map((l) => ({ text: l.text, x: l.x0 / scale, y: l.y0 / scale, width: (l.x1 - l.x0) / scale, height: (l.y1 - l.y0) / scale }));
    if (this.options.turnedPass === false || out.some((l) => looksLikeCredit(l.text))) return out;
    const turned = await this.read(await sharp(page, raw).rotate(90).png({ compressionLevel: 1 }).toBuffer(), ROTATED_MIN_CONFIDENCE);
    for (const l of turned) {
      if (!looksLikeCredit(l.text)) continue;
      // Turned clockwise, a point (x, y) of the page is at (sh - y, x): the line's box, back on the page.
      out.push({ text: l.text, x: l.y0 / scale, y: (sh - l.x1) / scale, width: (l.y1 - l.y0) / scale, height: (l.x1 - l.x0) / scale, angle: -Math.PI / 2 });
    }
    return out;
  }

  /** The lines tesseract reads in a PNG, at least `minConfidence` sure, with their pixel boxes. */
  private async read(png: Buffer, minConfidence: number): Promise<{ text: string; x0: number; y0: number; x1: number; y1: number }[]> {
    const { data } = await this.withinLimit(async () => {
      const worker = await this.get();
      // Tesseract's own diagnostics ("Line cannot be recognized") go to its null device, not our stdout.
      return worker.recognize(png, { debug_file: '/dev/null' } as never, { blocks: true, text: false });
    });
    const out: { text: string; x0: number; y0: number; x1: number; y1: number }[] = [];
    for (const block of data.blocks ?? []) {
      for (const para of block.paragraphs) {
        for (const line of para.lines) {
          const text = line.text.replace(/\s+/g, ' ').trim();
          if (!text || line.confidence < minConfidence) continue;
          out.push({ text, ...line.bbox });
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
