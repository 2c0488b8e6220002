import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { DocumentError } from './document-error.js';
import { prescanPdf, type RawJpeg } from './pdf-prescan.js';
import { creditNear, type TextLine } from './credit-lines.js';

/** A box on the page in PDF points, origin at the top-left corner of the page (y downwards). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ExtractedImage {
  /** MD5 of the bytes handed to matching: the same picture repeated anywhere shares it. */
  md5: string;
  /** The image as printed: the raw JPEG stream when it could be taken as is, else a PNG of the decoded pixels. */
  bytes: Buffer;
  format: 'jpeg' | 'png';
  width: number;
  height: number;
  /** Where it is placed on the page (one box per placement). */
  boxes: Box[];
  /** Text printed along the image that reads as a credit line, if any. */
  credit: string | null;
  /** How the credit was read: the page's text layer or OCR. */
  creditSource: 'text' | 'ocr' | null;
  /** True when the pixels came from pdf.js's decoder (CMYK, indexed, masked ...), false for raw JPEG. */
  decoded: boolean;
  /** True for a region of the rendered page (a picture printed as several tiles), not an embedded image. */
  rendered?: boolean;
}

export interface ExtractedPage {
  pageNumber: number;
  /** Page size in points. */
  width: number;
  height: number;
  /** Whether the page has a text layer (otherwise it is a scan: OCR applies); pages without images are not read and count as text. */
  hasText: boolean;
  images: ExtractedImage[];
  /** Text lines of the page (points, top-left origin), from the text layer or OCR. */
  lines: TextLine[];
}

export interface ExtractionLimits {
  /** Documents with more pages are refused. */
  maxPages: number;
  /** An image declaring more pixels than this is refused (and pdf.js never decodes one). */
  maxImagePixels: number;
  /** Images smaller than this on either side are ignored (rules, bullets, logos' specks). */
  minImageSide: number;
  /** Wall-clock limit for the whole document, in milliseconds. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: ExtractionLimits = { maxPages: 2000, maxImagePixels: 40_000_000, minImageSide: 48, timeoutMs: 15 * 60_000 };

export interface OcrEngine {
  /** Text lines of an image, in the image's pixel coordinates; `angle` (radians) for lines read rotated. */
  lines(image: Buffer): Promise<{ text: string; x: number; y: number; width: number; height: number; angle?: number }[]>;
}

// pdf.js is an ES module: loaded once, lazily, from the CommonJS build.
type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | null = null;
const loadPdfJs = () => (pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs'));
const pdfjsRoot = () => dirname(require.resolve('pdfjs-dist/package.json'));
const folderUrl = (sub: string) => `${pathToFileURL(join(pdfjsRoot(), sub)).href}/`;

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  n[0] * m[0] + n[1] * m[2],
  n[0] * m[1] + n[1] * m[3],
  n[2] * m[0] + n[3] * m[2],
  n[2] * m[1] + n[3] * m[3],
  n[4] * m[0] + n[5] * m[2] + m[4],
  n[4] * m[1] + n[5] * m[3] + m[5],
];
const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

/** Placement box of the unit square under `ctm`, in top-left page coordinates. */
function unitBox(ctm: Matrix, pageHeight: number, originY: number, originX: number): Box {
  const pts = [apply(ctm, 0, 0), apply(ctm, 1, 0), apply(ctm, 0, 1), apply(ctm, 1, 1)];
  const xs = pts.map((p) => p[0] - originX);
  const ys = pts.map((p) => pageHeight - (p[1] - originY));
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

interface PdfImageObject {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8ClampedArray | Uint8Array;
}

/** pdf.js decoded pixels (1-bit grey, RGB or RGBA) as a PNG, soft masks flattened on white paper. */
async function decodedToPng(img: PdfImageObject): Promise<Buffer> {
  const { width, height, kind } = img;
  const data = img.data!;
  let pixels: Buffer;
  let channels: 1 | 3 | 4;
  if (kind === 1) {
    // GRAYSCALE_1BPP: rows padded to whole bytes, a set bit is white.
    const rowBytes = (width + 7) >> 3;
    pixels = Buffer.alloc(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) pixels[y * width + x] = data[y * rowBytes + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
    }
    channels = 1;
  } else if (kind === 2) {
    pixels = Buffer.from(data.buffer, data.byteOffset, width * height * 3);
    channels = 3;
  } else {
    pixels = Buffer.from(data.buffer, data.byteOffset, width * height * 4);
    channels = 4;
  }
  let s = sharp(pixels, { raw: { width, height, channels } });
  if (channels === 4) s = s.flatten({ background: '#ffffff' });
  return s.png({ compressionLevel: 1 }).toBuffer();
}

/** A 16 x 16 RGB thumbnail of decoded pixels, to tell which raw stream a pdf.js image came from. */
async function thumb(input: sharp.Sharp): Promise<Buffer> {
  return input.removeAlpha().toColourspace('srgb').resize(16, 16, { fit: 'fill' }).raw().toBuffer();
}

function pdfjsPixels(img: PdfImageObject): sharp.Sharp | null {
  // A raw-eligible stream has no mask, so pdf.js gives it as RGB (kind 2); RGBA means a mask.
  if (img.kind !== 2) return null;
  const channels = 3;
  const data = img.data!;
  return sharp(Buffer.from(data.buffer, data.byteOffset, img.width * img.height * channels), { raw: { width: img.width, height: img.height, channels } });
}

/**
 * Index of the raw JPEG (same size) whose decoded pixels are the ones pdf.js painted: pdf.js
 * does not name the stream it decoded, and two images of a page may share a size.
 */
async function findRaw(raws: RawJpeg[], img: PdfImageObject): Promise<number> {
  const candidates = raws.map((r, i) => [r, i] as const).filter(([r]) => r.width === img.width && r.height === img.height);
  if (!candidates.length) return -1;
  const pixels = pdfjsPixels(img);
  if (!pixels) return -1;
  const mine = await thumb(pixels);
  for (const [r, i] of candidates) {
    let theirs: Buffer;
    try {
      theirs = await thumb(sharp(r.bytes));
    } catch {
      continue;
    }
    let diff = 0;
    for (let k = 0; k < mine.length; k++) diff += Math.abs(mine[k]! - theirs[k]!);
    // Two JPEG decoders differ by a grey level or two; another picture by tens.
    if (diff / mine.length < 6) return i;
  }
  return -1;
}

interface Placement {
  objId: string | null;
  inline: PdfImageObject | null;
  ctm: Matrix;
}

/** Walks an operator list keeping the current transformation matrix through save/restore and forms. */
function placements(pdfjs: PdfJs, fnArray: number[], argsArray: unknown[][], base: Matrix): Placement[] {
  const { OPS } = pdfjs;
  const out: Placement[] = [];
  const stack: Matrix[] = [];
  let ctm = base;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] ?? [];
    switch (fn) {
      case OPS.save:
        stack.push(ctm);
        break;
      case OPS.restore:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.transform:
        ctm = multiply(ctm, args as Matrix);
        break;
      case OPS.paintFormXObjectBegin:
        stack.push(ctm);
        if (Array.isArray(args[0]) && args[0].length === 6) ctm = multiply(ctm, args[0] as Matrix);
        break;
      case OPS.paintFormXObjectEnd:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.paintImageXObject:
        out.push({ objId: String(args[0]), inline: null, ctm });
        break;
      case OPS.paintInlineImageXObject:
        out.push({ objId: null, inline: args[0] as PdfImageObject, ctm });
        break;
      case OPS.paintImageXObjectRepeat: {
        const [objId, sx, sy, positions] = args as [string, number, number, number[]];
        for (let p = 0; p + 1 < positions.length; p += 2) out.push({ objId, inline: null, ctm: multiply(ctm, [sx, 0, 0, sy, positions[p]!, positions[p + 1]!]) });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

function getObject(page: { objs: { get(id: string, cb: (v: unknown) => void): void }; commonObjs: { get(id: string, cb: (v: unknown) => void): void } }, id: string): Promise<PdfImageObject | null> {
  const store = id.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 10_000);
    store.get(id, (v) => {
      clearTimeout(timer);
      resolve((v as PdfImageObject) ?? null);
    });
  });
}

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
    const seen = new Map<string, { md5: string; bytes: Buffer; format: 'jpeg' | 'png'; decoded: boolean }>();
    for (let n = 1; n <= doc.numPages; n++) {
      if (Date.now() > deadline) throw new DocumentError('timeout', `The analysis took longer than ${Math.round(limits.timeoutMs / 1000)} s (stopped at page ${n}).`);
      const page = await doc.getPage(n);
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

async function extractPage(
  pdfjs: PdfJs,
  page: Awaited<ReturnType<Awaited<ReturnType<PdfJs['getDocument']>['promise']>['getPage']>>,
  pageNumber: number,
  raws: RawJpeg[],
  seen: Map<string, { md5: string; bytes: Buffer; format: 'jpeg' | 'png'; decoded: boolean }>,
  limits: ExtractionLimits,
  ocr: OcrEngine | null,
): Promise<ExtractedPage> {
  const [vx0, vy0, vx1, vy1] = page.view as [number, number, number, number];
  const pageWidth = vx1 - vx0;
  const pageHeight = vy1 - vy0;
  const ops = await page.getOperatorList();
  const found = new Map<string, ExtractedImage>();
  const unusedRaws = [...raws];
  const local = new Map<string, { md5: string; bytes: Buffer; format: 'jpeg' | 'png'; decoded: boolean }>();
  for (const p of placements(pdfjs, ops.fnArray, ops.argsArray as unknown[][], IDENTITY)) {
    const img = p.inline ?? (p.objId ? await getObject(page, p.objId) : null);
    if (!img || !img.width || !img.height || !img.data) continue;
    if (img.width < limits.minImageSide || img.height < limits.minImageSide) continue;
    const box = unitBox(p.ctm, pageHeight, vy0, vx0);
    // pdf.js object ids are per document for shared images (g_...) and per page otherwise.
    const cache = p.objId?.startsWith('g_') ? seen : local;
    let entry = p.objId ? cache.get(p.objId) : undefined;
    if (!entry) {
      // The raw JPEG stream of this placement, when pdf-lib found one of the same size on the page.
      const rawAt = p.inline ? -1 : await findRaw(unusedRaws, img);
      if (rawAt >= 0) {
        const raw = unusedRaws.splice(rawAt, 1)[0]!;
        entry = { md5: md5(raw.bytes), bytes: raw.bytes, format: 'jpeg', decoded: false };
      } else {
        const png = await decodedToPng(img);
        entry = { md5: md5(png), bytes: png, format: 'png', decoded: true };
      }
      if (p.objId) cache.set(p.objId, entry);
      // The same bytes seen earlier under another id (identical streams, repeated inline images).
      const same = seen.get(`md5:${entry.md5}`);
      if (same) entry = same;
      else seen.set(`md5:${entry.md5}`, entry);
    }
    const existing = found.get(entry.md5);
    if (existing) existing.boxes.push(box);
    else {
      found.set(entry.md5, {
        md5: entry.md5, bytes: entry.bytes, format: entry.format, width: img.width, height: img.height,
        boxes: [box], credit: null, creditSource: null, decoded: entry.decoded,
      });
    }
  }
  const images = [...found.values()];
  for (const region of tiledRegions(images)) {
    const rendered = await renderRegion(page, region, limits);
    if (rendered) images.push(rendered);
  }
  // Text only matters next to images (credit lines): pages without images skip it.
  const text = images.length ? await page.getTextContent() : { items: [] };
  let lines = textLines(text.items as TextItem[], pageHeight, vx0, vy0);
  const hasText = !images.length || lines.some((l) => l.text.trim().length > 0);
  let source: 'text' | 'ocr' = 'text';
  if (!hasText && ocr && images.length) {
    // A scan: the page is (mostly) one picture; its words come from OCR, mapped back to points.
    source = 'ocr';
    lines = [];
    for (const image of images) {
      const box = image.boxes[0]!;
      const sx = box.width / image.width;
      const sy = box.height / image.height;
      // An OCR failure costs the credit lines of this page, never its images' matching.
      const read = await ocr.lines(image.bytes).catch((err: Error) => {
        console.error(`press OCR, page ${pageNumber}: ${err.message}`);
        return [];
      });
      for (const l of read) {
        lines.push({ text: l.text, x: box.x + l.x * sx, y: box.y + l.y * sy, width: l.width * sx, height: l.height * sy, angle: l.angle ?? 0 });
      }
    }
  }
  for (const image of images) {
    let best: string | null = null;
    for (const box of image.boxes) best ??= creditNear(box, lines);
    image.credit = best;
    image.creditSource = best ? source : null;
  }
  return { pageNumber, width: pageWidth, height: pageHeight, hasText, images, lines };
}

/** Rendering resolution for tiled regions: 150 dpi keeps a photo's features, bounds the cost. */
const RENDER_DPI = 150;
const near = (a: number, b: number) => Math.abs(a - b) <= 1.5;

/**
 * Rectangles covered edge to edge by several images (a photo printed as tiles, as some layout
 * and PDF tools split large pictures): only there is rendering the page worth its cost, since each
 * tile alone shows a fraction of the picture. Returns the union boxes of such groups.
 */
export function tiledRegions(images: ExtractedImage[]): Box[] {
  const boxes = images.filter((i) => !i.rendered).flatMap((i) => i.boxes);
  const parent = boxes.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const sideBySide = (near(a.x + a.width, b.x) || near(b.x + b.width, a.x)) && near(a.y, b.y) && near(a.height, b.height);
      const stacked = (near(a.y + a.height, b.y) || near(b.y + b.height, a.y)) && near(a.x, b.x) && near(a.width, b.width);
      if (sideBySide || stacked) parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, Box[]>();
  boxes.forEach((b, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), b]));
  return [...groups.values()]
    .filter((g) => g.length > 1)
    .map((g) => {
      const x = Math.min(...g.map((b) => b.x));
      const y = Math.min(...g.map((b) => b.y));
      return { x, y, width: Math.max(...g.map((b) => b.x + b.width)) - x, height: Math.max(...g.map((b) => b.y + b.height)) - y };
    });
}

type PdfPage = Awaited<ReturnType<Awaited<ReturnType<PdfJs['getDocument']>['promise']>['getPage']>>;

/** The page rendered at RENDER_DPI (pdf.js on @napi-rs/canvas), cropped to `region`, as a PNG image. */
async function renderRegion(page: PdfPage, region: Box, limits: ExtractionLimits): Promise<ExtractedImage | null> {
  const scale = RENDER_DPI / 72;
  const viewport = page.getViewport({ scale });
  if (viewport.width * viewport.height > limits.maxImagePixels) return null;
  let canvasModule: typeof import('@napi-rs/canvas');
  try {
    canvasModule = await import('@napi-rs/canvas');
  } catch {
    return null; // no canvas on this platform: embedded images only
  }
  const canvas = canvasModule.createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({ canvasContext: context as never, canvas: canvas as never, viewport } as never).promise;
  const png = canvas.toBuffer('image/png');
  const left = Math.max(0, Math.floor(region.x * scale));
  const top = Math.max(0, Math.floor(region.y * scale));
  const width = Math.min(canvas.width - left, Math.ceil(region.width * scale));
  const height = Math.min(canvas.height - top, Math.ceil(region.height * scale));
  if (width < limits.minImageSide || height < limits.minImageSide) return null;
  const bytes = await sharp(png).extract({ left, top, width, height }).png({ compressionLevel: 1 }).toBuffer();
  return { md5: md5(bytes), bytes, format: 'png', width, height, boxes: [region], credit: null, creditSource: null, decoded: true, rendered: true };
}

interface TextItem {
  str?: string;
  transform?: number[];
  width?: number;
  height?: number;
  hasEOL?: boolean;
}

/** pdf.js text items as positioned runs (top-left points); rotated runs keep their angle. */
function textLines(items: TextItem[], pageHeight: number, vx0: number, vy0: number): TextLine[] {
  const out: TextLine[] = [];
  for (const it of items) {
    if (!it.str || !it.transform) continue;
    const [a, b, , , e, f] = it.transform as Matrix;
    const angle = Math.atan2(b, a);
    const size = Math.hypot(a, b) || it.height || 10;
    const length = it.width ?? 0;
    // Baseline start and end in page space, then a box around the run.
    const x1 = e + Math.cos(angle) * length;
    const y1 = f + Math.sin(angle) * length;
    const xs = [e, x1, e - Math.sin(angle) * size, x1 - Math.sin(angle) * size];
    const ys = [f, y1, f + Math.cos(angle) * size, y1 + Math.cos(angle) * size];
    const left = Math.min(...xs) - vx0;
    const top = pageHeight - (Math.max(...ys) - vy0);
    out.push({ text: it.str, x: left, y: top, width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys), angle });
  }
  return out;
}

export const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
export { DocumentError };
