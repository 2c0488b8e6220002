import { creditNear, type TextLine } from './credit-lines.js';
import type { ExtractedImage, OcrEngine } from './pdf-model.js';
import type { PdfPage } from './pdf-document.js';
import type { Matrix } from './pdf-placements.js';

// The text of a page next to its images: the text layer, or OCR for a scan; then each image's credit line.

export interface TextItem {
  str?: string;
  transform?: number[];
  width?: number;
  height?: number;
  hasEOL?: boolean;
}

/** pdf.js text items as positioned runs (top-left points); rotated runs keep their angle. */
export function textLines(items: TextItem[], pageHeight: number, vx0: number, vy0: number): TextLine[] {
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

/**
 * The text lines of a page (its text layer; OCR of its images for a scan) and each image's credit
 * line from them. Text only matters next to images: pages without images skip it.
 */
export async function creditLines(
  page: PdfPage,
  images: ExtractedImage[],
  pageNumber: number,
  { pageHeight, vx0, vy0 }: { pageHeight: number; vx0: number; vy0: number },
  ocr: OcrEngine | null,
): Promise<{ lines: TextLine[]; hasText: boolean }> {
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
  return { lines, hasText };
}
