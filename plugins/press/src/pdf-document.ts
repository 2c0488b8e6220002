import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DocumentError } from './document-error.js';
import { prescanPdf } from './pdf-prescan.js';
import { DEFAULT_LIMITS, type ExtractedPage, type ExtractionLimits, type OcrEngine } from './pdf-model.js';
import { extractPage, type SeenImages } from './pdf-page-images.js';

// pdf.js is an ES module: loaded once, lazily, from the CommonJS build.
export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | null = null;
const loadPdfJs = () => (pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs'));
const pdfjsRoot = () => dirname(require.resolve('pdfjs-dist/package.json'));
const folderUrl = (sub: string) => `${pathToFileURL(join(pdfjsRoot(), sub)).href}/`;

/** One page of a loaded document. */
export type PdfPage = Awaited<ReturnType<Awaited<ReturnType<PdfJs['getDocument']>['promise']>['getPage']>>;

export interface ExtractOptions {
  limits?: Partial<ExtractionLimits>;
  ocr?: OcrEngine | null;
  /** Called before each page, with the page count, so callers can record progress. */
  onStart?: (pageCount: number) => Promise<void> | void;
}

/**
 * Every raster image of every page of a PDF, page by page (one page in memory at a time), with
 * its placement boxes and the credit line printed along it. pdf.js decodes (CMYK, ICC, indexed,
 * 1-bit, soft masks); JPEG streams placed as they are keep their original bytes (pdf-lib).
 * Throws `DocumentError` for documents refused as a whole.
 */
export async function* extractPdf(data: Buffer, options: ExtractOptions = {}): AsyncGenerator<ExtractedPage> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const deadline = Date.now() + limits.timeoutMs;
  const scan = await prescanPdf(data, limits.maxImagePixels);
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    data: new Uint8Array(data),
    standardFontDataUrl: folderUrl('standard_fonts'),
    cMapUrl: folderUrl('cmaps'),
    cMapPacked: true,
    iccUrl: folderUrl('iccs'),
    wasmUrl: folderUrl('wasm'),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    maxImageSize: limits.maxImagePixels,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    stopAtErrors: false,
    verbosity: 0,
  } as Parameters<PdfJs['getDocument']>[0]);
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    const name = (err as Error).name;
    if (name === 'PasswordException') throw new DocumentError('pdf_encrypted', 'The document is encrypted with a password.');
    throw new DocumentError('pdf_invalid', `The document cannot be read as a PDF (${(err as Error).message}).`);
  }
  try {
    if (doc.numPages > limits.maxPages) throw new DocumentError('too_many_pages', `The document has ${doc.numPages} pages; at most ${limits.maxPages} are analysed.`);
    await options.onStart?.(doc.numPages);
    // A picture repeated on many pages is decoded and encoded once.
    const seen: SeenImages = new Map();
    for (let n = 1; n <= doc.numPages; n++) {
      if (Date.now() > deadline) throw new DocumentError('timeout', `The analysis took longer than ${Math.round(limits.timeoutMs / 1000)} s (stopped at page ${n}).`);
      let page: PdfPage;
      try {
        page = await doc.getPage(n);
      } catch {
        // pdf.js's reason names its internals ("Pages tree contains circular reference"): the client gets the page.
        throw new DocumentError('pdf_invalid', `Page ${n} of the document cannot be read (its page tree or page object is damaged).`);
      }
      try {
        yield await extractPage(pdfjs, page, n, scan.rawJpegs.get(n) ?? [], seen, limits, options.ocr ?? null);
      } finally {
        page.cleanup();
      }
    }
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}
