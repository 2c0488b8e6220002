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
