import { mkdirSync, mkdtempSync, readlinkSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { TesseractOcr } from '@filigrane/plugin-press';
import { syntheticPhoto } from '@filigrane/vision';

// This process's own temporary folder, so planting stale links cannot disturb another test file's OCR.
process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'filigrane-ocr-test-'));
const ocr = new TesseractOcr();
test.after.always(() => ocr.close());

test('language links left by a removed install are replaced; the credit line is read', async (t) => {
  const folder = join(tmpdir(), 'filigrane-tessdata-4.0.0');
  mkdirSync(folder, { recursive: true });
  for (const lang of ['eng', 'fra']) symlinkSync('/nonexistent/old-install/node_modules/x.traineddata.gz', join(folder, `${lang}.traineddata.gz`));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="160"><rect width="900" height="160" fill="white"/>
    <text x="30" y="95" font-size="44" font-family="DejaVu Sans, sans-serif">Photo: Alice Studio / Agence</text></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const lines = await ocr.lines(png);
  t.regex(lines.map((l) => l.text).join('\n'), /Alice Studio/);
  for (const lang of ['eng', 'fra']) t.regex(readlinkSync(join(folder, `${lang}.traineddata.gz`)), /@tesseract\.js-data/);
});

test('a credit printed up the edge of a photo is read (the page is read again turned a quarter)', async (t) => {
  const photo = await sharp(await syntheticPhoto(77)).resize(640, 480).toBuffer();
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="760" height="560"><rect width="760" height="560" fill="#f2f0ea"/>
    <text transform="translate(712 520) rotate(-90)" font-size="17" font-family="DejaVu Sans Condensed" fill="#222">© Jean-Pierre Lefèvre / AFP</text></svg>`;
  // Printed, then scanned: slightly skewed and blurred, saved as a JPEG.
  const scan = await sharp(Buffer.from(svg)).composite([{ input: photo, left: 50, top: 40 }]).greyscale().blur(0.6)
    .rotate(0.6, { background: '#f2f0ea' }).jpeg({ quality: 80 }).toBuffer();
  const lines = await ocr.lines(scan);
  const credit = lines.find((l) => /Lef[eèé]vre/.test(l.text));
  t.truthy(credit, JSON.stringify(lines));
  t.regex(credit!.text, /Jean-Pierre Lef[eèé]vre \/ AFP/);
  t.is(credit!.angle, -Math.PI / 2);
  t.true(credit!.x > 680 && credit!.height > 150, `its box runs up the right edge of the photo: ${JSON.stringify(credit)}`);
});
