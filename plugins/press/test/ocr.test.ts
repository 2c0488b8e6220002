import { mkdirSync, mkdtempSync, readlinkSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { TesseractOcr } from '@filigrane/plugin-press';

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
