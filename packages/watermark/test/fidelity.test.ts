/**
 * The written file is the photograph plus the mark: measured on the file with ImageMagick (compare,
 * identify), an independent decoder that applies no colour management.
 */
import test from 'ava';
import sharp from 'sharp';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimateJpegQuality, jpegChromaSubsampling } from '@filigrane/vision';
import { detect, embed, embedRaw, generateKey } from '../src/index';
import { codecSampleBands, lastEmbedTimeline } from '../src/internal';
import { syntheticPixels } from './fixtures';

const dir = mkdtempSync(join(tmpdir(), 'filigrane-fidelity-'));
let n = 0;
function save(bytes: Buffer, ext: string): string {
  const file = join(dir, `${n++}.${ext}`);
  writeFileSync(file, bytes);
  return file;
}

function comparePsnr(a: string, b: string): number {
  try {
    return Number(execFileSync('compare', ['-metric', 'PSNR', a, b, 'null:'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch (err) {
    return Number(String((err as { stderr: Buffer }).stderr).trim().split(/\s/)[0]);
  }
}

function means(file: string): number[] {
  return execFileSync('identify', ['-format', '%[fx:255*mean.r] %[fx:255*mean.g] %[fx:255*mean.b]', file], { encoding: 'utf8' }).split(' ').map(Number);
}

const rgb = (w: number, h: number, seed: number): sharp.Sharp => sharp(syntheticPixels(w, h, seed), { raw: { width: w, height: h, channels: 3 } });

test('a Display P3 JPEG is marked in P3: profile kept, pixels not converted, file PSNR >= 44 dB as compare measures it', async (t) => {
  const input = await rgb(640, 480, 11).withIccProfile('p3').jpeg({ quality: 90 }).toBuffer();
  const marked = await embed(input, generateKey());
  const a = save(input, 'jpg');
  const b = save(marked.image, 'jpg');
  const psnr = comparePsnr(a, b);
  t.true(psnr >= 44, `compare PSNR ${psnr}`);
  t.true(Math.abs(psnr - marked.report.psnr) < 0.01, `report ${marked.report.psnr} vs compare ${psnr}`);
  const shift = means(b).map((v, i) => v - means(a)[i]);
  t.true(shift.every((s) => Math.abs(s) < 0.5), `mean shift ${shift.join('/')}`);
  t.deepEqual((await sharp(marked.image).metadata()).icc, (await sharp(input).metadata()).icc);
  t.true((await detect(await sharp(marked.image).jpeg({ quality: 60 }).toBuffer(), marked.registration)).watermarked);
});

test('a 16-bit Display P3 PNG keeps its depth, profile and samples (no conversion to sRGB or P3)', async (t) => {
  const input = await rgb(400, 300, 12).withIccProfile('p3').toColourspace('rgb16').png().toBuffer();
  t.is((await sharp(input).metadata()).depth, 'ushort');
  const marked = await embed(input, generateKey());
  const a = save(input, 'png');
  const b = save(marked.image, 'png');
  t.is((await sharp(marked.image).metadata()).depth, 'ushort');
  const psnr = comparePsnr(a, b);
  t.true(psnr >= 44 && psnr < 46, `compare PSNR ${psnr}`);
  const shift = means(b).map((v, i) => v - means(a)[i]);
  t.true(shift.every((s) => Math.abs(s) < 0.5), `mean shift ${shift.join('/')}`);
});

test('JPEG keeps its quality, 4:2:0 or 4:4:4 subsampling and progressive mode; 4:2:2 is never written 4:2:0', async (t) => {
  for (const [q, sub, progressive] of [
    [80, '4:2:0', true],
    [90, '4:4:4', false],
  ] as const) {
    const input = await rgb(480, 360, 13).jpeg({ quality: q, chromaSubsampling: sub, progressive }).toBuffer();
    const marked = await embed(input, generateKey());
    const meta = await sharp(marked.image).metadata();
    t.is(jpegChromaSubsampling(marked.image), sub);
    t.is(meta.isProgressive, progressive);
    t.is(estimateJpegQuality(marked.image), q);
    t.true(comparePsnr(save(input, 'jpg'), save(marked.image, 'jpg')) >= 44);
  }
  const png = save(await rgb(480, 360, 14).png().toBuffer(), 'png');
  const j422 = join(dir, '422.jpg');
  execFileSync('convert', [png, '-sampling-factor', '2x1', '-quality', '88', j422]);
  const input = readFileSync(j422);
  t.is(jpegChromaSubsampling(input), '4:2:2');
  const marked = await embed(input, generateKey());
  t.is(jpegChromaSubsampling(marked.image), '4:4:4');
  t.true(comparePsnr(j422, save(marked.image, 'jpg')) >= 44);
});

test('a palette PNG stays a palette PNG', async (t) => {
  const input = await rgb(320, 240, 15).png({ palette: true, colours: 64, dither: 0 }).toBuffer();
  t.true((await sharp(input).metadata()).isPalette);
  const marked = await embed(input, generateKey());
  t.true((await sharp(marked.image).metadata()).isPalette);
  t.true(comparePsnr(save(input, 'png'), save(marked.image, 'png')) > 35);
});

test.serial('a large JPEG planned from its shrunk decode: file PSNR >= 44 dB, the exact reduced original, the mark detected', async (t) => {
  // 4.1 MP: the mask comes from libjpeg's 1/2 or 1/4 decode, the reduced original from the full one.
  const px = syntheticPixels(2480, 1660, 7);
  const original = await sharp(px, { raw: { width: 2480, height: 1660, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  const key = generateKey();
  const marked = await embed(original, key);
  t.true(lastEmbedTimeline.some(([step]) => step === 'shrunkDecode'), 'planned from the shrunk decode');
  // One apply and one encode: the codec estimate made the first embedding final, and nothing (such as
  // the idle work that maps in the marked copy's memory) wrote into the marked copy while it was coded.
  t.is(lastEmbedTimeline.filter(([step]) => step === 'apply').length, 1, 'one embedding');
  const file = save(marked.image, 'jpg');
  t.true(comparePsnr(save(original, 'jpg'), file) >= 44);
  // The same pixels embedded from raw take the full-resolution path: their reduced originals are equal.
  const decoded = await sharp(original).raw().toBuffer({ resolveWithObject: true });
  const raw = { data: new Uint8Array(decoded.data), width: 2480, height: 1660, channels: 3 as const, depth: 8 as const };
  const fromRaw = embedRaw(raw, key);
  t.deepEqual(marked.registration.reduced, fromRaw.registration.reduced);
  t.true((await detect(await sharp(marked.image).resize(1200).jpeg({ quality: 70 }).toBuffer(), marked.registration)).watermarked);
});

test.serial('a JPEG whose re-encoding the codec sample misjudges climbs the quality ladder and is marked again, still >= 44 dB as compare measures it', async (t) => {
  // Texture only in the rows between the codec sample's bands: the sample sees a smooth gradient, the
  // file loses far more, and the marked copy (let go once coded) is marked again for each later write.
  const [W, H] = [1600, 1200];
  const sampled = new Uint8Array(H);
  const bands = codecSampleBands(H);
  for (const y0 of bands.starts) sampled.fill(1, y0, y0 + bands.rows);
  let seed = 9;
  const noise = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
  const px = Buffer.alloc(W * H * 3);
  for (let p = 0; p < W * H * 3; p++) {
    const base = 60 + ((Math.floor(p / 3) % W) * 120) / W + (p % 3) * 10;
    px[p] = sampled[Math.floor(p / 3 / W)] ? base : Math.max(0, Math.min(255, base + noise() * 120));
  }
  const original = await sharp(px, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
  const marked = await embed(original, generateKey());
  t.true(lastEmbedTimeline.filter(([step]) => step === 'encode').length > 1, 'the first file fell short and was written again');
  const [a, b] = [save(original, 'jpg'), save(marked.image, 'jpg')];
  const psnr = comparePsnr(a, b);
  t.true(psnr >= 44, `compare PSNR ${psnr}`);
  t.true(Math.abs(psnr - marked.report.psnr) < 0.01, `report ${marked.report.psnr} vs compare ${psnr}`);
  // The result's pixels are the written file's.
  const decoded = await sharp(marked.image).raw().toBuffer();
  t.true(Buffer.from(marked.raw.data.buffer, marked.raw.data.byteOffset, marked.raw.data.byteLength).equals(decoded));
});

test.serial('a progressive JPEG above 4 MP is decoded once and written sequential, at its quality and subsampling, file PSNR >= 44 dB', async (t) => {
  // libjpeg holds a progressive image's every coefficient to decode or write it, at any scale: no
  // shrunk second decode, and a sequential file (api-decisions.md, "Watermarked file fidelity").
  const original = await rgb(2480, 1660, 8).jpeg({ quality: 95, chromaSubsampling: '4:4:4', progressive: true }).toBuffer();
  t.true((await sharp(original).metadata()).isProgressive);
  const marked = await embed(original, generateKey());
  t.false(lastEmbedTimeline.some(([step]) => step === 'shrunkDecode'), 'no shrunk decode');
  t.false((await sharp(marked.image).metadata()).isProgressive, 'written sequential');
  t.is(estimateJpegQuality(marked.image), 95);
  t.is(jpegChromaSubsampling(marked.image), '4:4:4');
  const [a, b] = [save(original, 'jpg'), save(marked.image, 'jpg')];
  const psnr = comparePsnr(a, b);
  t.true(psnr >= 44, `compare PSNR ${psnr}`);
  t.true(Math.abs(psnr - marked.report.psnr) < 0.01, `report ${marked.report.psnr} vs compare ${psnr}`);
  const shift = means(b).map((v, i) => v - means(a)[i]);
  t.true(shift.every((s) => Math.abs(s) < 0.5), `mean shift ${shift.join('/')}`);
});
