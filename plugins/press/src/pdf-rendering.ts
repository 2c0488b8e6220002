import sharp from 'sharp';
import { md5, type Box, type ExtractedImage, type ExtractionLimits } from './pdf-model.js';
import type { PdfPage } from './pdf-document.js';

// Pictures printed as tiles: found from the placements, rendered as one picture.

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

/** The page rendered at RENDER_DPI (pdf.js on @napi-rs/canvas), cropped to `region`, as a PNG image. */
export async function renderRegion(page: PdfPage, region: Box, limits: ExtractionLimits): Promise<ExtractedImage | null> {
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
