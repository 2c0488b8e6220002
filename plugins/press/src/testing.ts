import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';

/** Sample documents for tests and benchmarks. */

/** A newspaper-like page composed as a scan: a photo and its printed credit line, as one greyscale JPEG. */
export async function scannedPage(photo: Buffer, credit: string): Promise<Buffer> {
  const width = 1240;
  const height = 1754;
  const inset = await sharp(photo).resize({ width: 900 }).toBuffer();
  const insetHeight = (await sharp(inset).metadata()).height!;
  const svg = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#f3f0e8"/>` +
      `<text x="120" y="${300 + insetHeight + 40}" font-family="DejaVu Sans" font-size="28" fill="#111">${credit}</text>` +
      `<text x="120" y="${300 + insetHeight + 140}" font-family="DejaVu Serif" font-size="34" fill="#111">Le conseil municipal a voté hier soir le budget.</text></svg>`,
  );
  return sharp(svg).composite([{ input: inset, left: 120, top: 300 }]).greyscale().jpeg({ quality: 85 }).toBuffer();
}

export interface ScanOptions {
  /** The credit line printed under the photo. */
  credit: string;
  /** Scan resolution (150 to 300 in practice). */
  dpi: number;
  /** Skew of the sheet on the scanner glass, in degrees. */
  angle: number;
  /** Standard deviation of the sensor noise, in grey levels. */
  noise: number;
  seed: number;
  /** The photo printed on the page (any format sharp reads). */
  photo: Buffer;
  /** Where the credit is printed: under the photo (3 pt gap), or up its right edge, rotated. */
  placement?: 'below' | 'vertical';
  /** Credit font size in points (newspapers print 5.5 to 7). */
  size?: number;
}

const BODY = 'Le conseil municipal a voté hier soir le budget de la commune pour l\'année prochaine, après un long débat sur les travaux du port.';

/** Deterministic Gaussian noise (Box-Muller over a linear congruential generator). */
function gaussian(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0 || 1;
  const u = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) + 1) / 4294967297;
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/**
 * A newspaper page as a scanner gives it, wrapped in a PDF without text layer: an A4 page (headline,
 * a photo, its credit line in 7 pt sans, three columns of 9 pt body text) rendered at `dpi`, on
 * off-white paper with grey ink, slightly blurred, skewed by `angle`, with sensor noise, saved as a
 * JPEG (quality 75) filling the page. Returns the PDF and the scan image.
 */
export async function scannedCreditPdf(o: ScanOptions): Promise<{ pdf: Buffer; scan: Buffer }> {
  const W = 595;
  const H = 842;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const size = o.size ?? 7;
  // The photo spans x 50-545, y 90-430 (points).
  const credit = o.placement === 'vertical'
    ? `<text transform="translate(${545 + size + 1.5} 430) rotate(-90)" font-family="DejaVu Sans Condensed" font-size="${size}" fill="#222">${esc(o.credit)}</text>`
    : `<text x="545" y="${430 + size + 2}" text-anchor="end" font-family="DejaVu Sans Condensed" font-size="${size}" fill="#222">${esc(o.credit)}</text>`;
  const words = BODY.split(' ');
  let body = '';
  for (let col = 0; col < 3; col++) {
    for (let l = 0; l < 26; l++) {
      const line = Array.from({ length: 6 }, (_, k) => words[(col * 7 + l * 5 + k) % words.length]).join(' ');
      body += `<text x="${50 + col * 168}" y="${480 + l * 12}" font-family="DejaVu Serif" font-size="8.5" fill="#222">${esc(line)}</text>`;
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
    <rect width="100%" height="100%" fill="#fff"/>
    <text x="50" y="70" font-family="DejaVu Serif" font-weight="bold" font-size="22" fill="#111">Le port se prépare à l'hiver</text>
    ${credit}
    ${body}</svg>`;
  const scale = o.dpi / 72;
  const px = (v: number) => Math.round(v * scale);
  const photo = await sharp(o.photo).resize(px(495), px(340), { fit: 'cover' }).toBuffer();
  const page = await sharp(Buffer.from(svg), { density: o.dpi })
    .resize(px(W), px(H))
    .composite([{ input: photo, left: px(50), top: px(90) }])
    .greyscale()
    .linear(0.82, 28) // grey ink on off-white paper
    .blur(0.3 + 0.2 * scale)
    .rotate(o.angle, { background: '#f0f0f0' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { data, info } = page;
  const next = gaussian(o.seed);
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, Math.round(data[i]! + next() * o.noise)));
  const scan = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .extract({ left: Math.floor((info.width - px(W)) / 2), top: Math.floor((info.height - px(H)) / 2), width: px(W), height: px(H) })
    .jpeg({ quality: 75 })
    .withMetadata({ density: o.dpi })
    .toBuffer();
  const doc = await PDFDocument.create();
  const p = doc.addPage([W, H]);
  p.drawImage(await doc.embedJpg(scan), { x: 0, y: 0, width: W, height: H });
  return { pdf: Buffer.from(await doc.save()), scan };
}
