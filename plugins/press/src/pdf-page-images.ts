import sharp from 'sharp';
import type { RawJpeg } from './pdf-prescan.js';
import { md5, type ExtractedImage, type ExtractedPage, type ExtractionLimits, type OcrEngine } from './pdf-model.js';
import type { PdfJs, PdfPage } from './pdf-document.js';
import { getObject, IDENTITY, placements, unitBox, type PdfImageObject } from './pdf-placements.js';
import { renderRegion, tiledRegions } from './pdf-rendering.js';
import { creditLines } from './pdf-text.js';

/** Images already encoded in this document, by pdf.js object id and by `md5:<digest>`: a picture repeated on many pages is decoded and encoded once. */
export type SeenImages = Map<string, { md5: string; bytes: Buffer; format: 'jpeg' | 'png'; decoded: boolean }>;

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

/** The images of one page, their placements and credit lines. */
export async function extractPage(
  pdfjs: PdfJs,
  page: PdfPage,
  pageNumber: number,
  raws: RawJpeg[],
  seen: SeenImages,
  limits: ExtractionLimits,
  ocr: OcrEngine | null,
): Promise<ExtractedPage> {
  const [vx0, vy0, vx1, vy1] = page.view as [number, number, number, number];
  const pageWidth = vx1 - vx0;
  const pageHeight = vy1 - vy0;
  const ops = await page.getOperatorList();
  const found = new Map<string, ExtractedImage>();
  const unusedRaws = [...raws];
  const local: SeenImages = new Map();
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
  const { lines, hasText } = await creditLines(page, images, pageNumber, { pageHeight, vx0, vy0 }, ocr);
  return { pageNumber, width: pageWidth, height: pageHeight, hasText, images, lines };
}
