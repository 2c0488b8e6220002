import test from 'ava';
import sharp from 'sharp';
import { crc32 } from 'node:zlib';
import { CorruptImageError, ImageTooLargeError, UnsupportedFormatError } from '../src/errors';
import { detect, embed, embedRaw, generateKey, pixelHash, prepareQuery, type Registration } from '../src/index';
import { analyseDetection } from '../src/internal';
import { decodeRaw, probeImage } from '@filigrane/vision';
import { syntheticJpeg, syntheticPixels, syntheticPng } from './fixtures';

test('embed -> JPEG 50 -> detect is true; the unmarked original and a wrong key are false', async (t) => {
  const original = await syntheticJpeg(640, 480, 3);
  const key = generateKey();
  const marked = await embed(original, key);
  t.is(marked.format, 'jpeg');
  t.true(marked.report.psnr >= 44 && marked.report.psnr <= 44.5, `psnr ${marked.report.psnr}`);
  t.deepEqual([marked.report.width, marked.report.height], [640, 480]);
  const jpeg50 = await sharp(marked.image).jpeg({ quality: 50 }).toBuffer();
  const yes = await detect(jpeg50, marked.registration);
  t.true(yes.watermarked);
  t.true(yes.diagnostics.informed);
  t.false((await detect(original, marked.registration)).watermarked);
  t.false((await detect(jpeg50, { ...marked.registration, key: generateKey() })).watermarked);
  // the public result carries no p-value or score
  t.false(JSON.stringify(yes).includes('log10p'));
  t.deepEqual(Object.keys(yes).sort(), ['diagnostics', 'watermarked']);
});

test('detects after a crop and a rotation (feature registration), and blind without the reduced copy', async (t) => {
  const original = await syntheticPng(600, 400, 5);
  const marked = await embed(original, generateKey());
  const cropped = await sharp(marked.image).extract({ left: 120, top: 60, width: 420, height: 300 }).jpeg({ quality: 80 }).toBuffer();
  const a = await analyseDetection(cropped, marked.registration);
  t.true(a.outcomes.informed!.watermarked, `crop log10p ${a.outcomes.informed!.log10p}`);
  t.truthy(a.diagnostics.inliers);
  const rotated = await sharp(marked.image).rotate(7, { background: '#000' }).jpeg({ quality: 85 }).toBuffer();
  t.true((await detect(rotated, marked.registration)).watermarked);
  const blind = await analyseDetection(await sharp(marked.image).jpeg({ quality: 80 }).toBuffer(), { ...marked.registration, reduced: undefined });
  t.true(blind.outcomes.blind!.watermarked, `blind log10p ${blind.outcomes.blind!.log10p}`);
});

test('a copy squashed or stretched into a box of another aspect is detected as the whole original resized', async (t) => {
  const original = await syntheticPng(600, 400, 9);
  const marked = await embed(original, generateKey());
  for (const [w, h] of [[600, 280], [420, 400], [400, 400]]) {
    const q = await sharp(marked.image).resize(w, h, { fit: 'fill' }).jpeg({ quality: 85 }).toBuffer();
    t.true((await detect(q, marked.registration, { transforms: 'scale' })).watermarked, `${w}x${h}, scale`);
    // Without the reduced original only the resize hypothesis exists: it must be tried.
    const blind = await analyseDetection(q, { ...marked.registration, reduced: undefined }, { transforms: 'scale' });
    t.true(blind.outcomes.blind!.watermarked, `${w}x${h} blind log10p ${blind.outcomes.blind!.log10p}`);
  }
  // Beyond 1.82x the aspect is another picture's: a 600 x 150 strip is not tried whole.
  const strip = await sharp(marked.image).resize(600, 150, { fit: 'fill' }).jpeg({ quality: 85 }).toBuffer();
  t.false((await analyseDetection(strip, { ...marked.registration, reduced: undefined }, { transforms: 'scale' })).outcomes.blind!.watermarked);
});

test('256 px and odd-sized images', async (t) => {
  for (const [w, h] of [[256, 192], [257, 191], [333, 517]]) {
    const original = await syntheticPng(w, h, w);
    const marked = await embed(original, generateKey());
    t.true(marked.report.psnr >= 44, `${w}x${h} psnr ${marked.report.psnr}`);
    const meta = await sharp(marked.image).metadata();
    t.deepEqual([meta.width, meta.height, meta.format], [w, h, 'png']);
    const q = await sharp(marked.image).jpeg({ quality: 70 }).toBuffer();
    t.true((await detect(q, marked.registration)).watermarked, `${w}x${h}`);
  }
});

test('alpha is untouched, greyscale and 16-bit PNG keep their layout', async (t) => {
  const rgba = await syntheticPng(300, 200, 9, 4);
  const marked = await embed(rgba, generateKey());
  const before = await sharp(rgba).raw().toBuffer();
  const after = await sharp(marked.image).raw().toBuffer();
  let alphaDiff = 0;
  let colourDiff = 0;
  for (let i = 0; i < before.length; i += 4) {
    alphaDiff += Math.abs(before[i + 3] - after[i + 3]);
    colourDiff += Math.abs(before[i] - after[i]);
  }
  t.is(alphaDiff, 0);
  t.true(colourDiff > 0);

  const grey = await sharp(syntheticPixels(320, 240, 4), { raw: { width: 320, height: 240, channels: 3 } }).toColourspace('b-w').png().toBuffer();
  t.is((await sharp(grey).metadata()).channels, 1);
  const g = await embed(grey, generateKey());
  const gm = await sharp(g.image).metadata();
  t.is(gm.channels, 1);
  t.true((await detect(await sharp(g.image).jpeg({ quality: 60 }).toBuffer(), g.registration)).watermarked);

  const deep = await sharp(syntheticPixels(320, 240, 6), { raw: { width: 320, height: 240, channels: 3 } }).toColourspace('rgb16').png().toBuffer();
  t.is((await sharp(deep).metadata()).depth, 'ushort');
  const d = await embed(deep, generateKey());
  t.is((await sharp(d.image).metadata()).depth, 'ushort');
  t.true(d.report.psnr >= 44);
  t.true((await detect(d.image, d.registration)).watermarked);
});

test('ICC profile, EXIF and XMP are kept', async (t) => {
  const w = 320;
  const h = 240;
  const input = await sharp(syntheticPixels(w, h, 2), { raw: { width: w, height: h, channels: 3 } })
    .withIccProfile('p3')
    .withExif({ IFD0: { Copyright: 'Filigrane test', Artist: 'Ada' } })
    .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>')
    .jpeg({ quality: 90 })
    .toBuffer();
  const before = await sharp(input).metadata();
  t.truthy(before.icc && before.exif && before.xmp);
  const marked = await embed(input, generateKey());
  const after = await sharp(marked.image).metadata();
  t.deepEqual(after.icc, before.icc);
  t.deepEqual(after.exif, before.exif);
  t.deepEqual(after.xmp, before.xmp);
  const png = await sharp(syntheticPixels(w, h, 2), { raw: { width: w, height: h, channels: 3 } }).withIccProfile('p3').withExif({ IFD0: { Artist: 'Ada' } }).png().toBuffer();
  const pm = await sharp((await embed(png, generateKey())).image).metadata();
  t.deepEqual(pm.icc, (await sharp(png).metadata()).icc);
  t.deepEqual(pm.exif, (await sharp(png).metadata()).exif);
});

test('the pixel hash ignores metadata and sees pixel changes', async (t) => {
  const pixels = syntheticPixels(200, 150, 8);
  const plain = await sharp(pixels, { raw: { width: 200, height: 150, channels: 3 } }).png().toBuffer();
  const tagged = await sharp(pixels, { raw: { width: 200, height: 150, channels: 3 } }).withExif({ IFD0: { Artist: 'Bob' } }).png({ compressionLevel: 1 }).toBuffer();
  t.notDeepEqual(plain, tagged);
  const hash = async (b: Buffer): Promise<Buffer> => pixelHash(await decodeRaw(b, await probeImage(b)));
  t.deepEqual(await hash(plain), await hash(tagged));
  const changed = Buffer.from(pixels);
  changed[100] ^= 1;
  t.notDeepEqual(await hash(plain), await hash(await sharp(changed, { raw: { width: 200, height: 150, channels: 3 } }).png().toBuffer()));
  const r = embedRaw({ data: pixels, width: 200, height: 150, channels: 3, depth: 8 }, generateKey(), { transactional: true });
  t.deepEqual(r.registration.pixelHash, await hash(plain));
  t.is(r.registration.reduced, undefined);
  // embed() (hash taken in slices while libvips codes) gives the same hash, and seals the registration it returns.
  const sealed: Buffer[] = [];
  const seal = (reg: Registration): Buffer => {
    sealed.push(Buffer.from(JSON.stringify([reg.pixelHash.toString('hex'), reg.params])));
    return sealed[sealed.length - 1];
  };
  const jpeg = await sharp(pixels, { raw: { width: 200, height: 150, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  const e = await embed(jpeg, generateKey(), { seal });
  t.deepEqual(e.registration.pixelHash, await hash(jpeg));
  t.true(sealed.length >= 1);
  t.deepEqual(e.sealed, seal(e.registration));
});

test('GIF: a still GIF is marked as GIF, an animated GIF is refused', async (t) => {
  const still = await sharp(syntheticPixels(300, 200, 11), { raw: { width: 300, height: 200, channels: 3 } }).gif().toBuffer();
  const marked = await embed(still, generateKey());
  t.is(marked.format, 'gif');
  t.is((await sharp(marked.image).metadata()).format, 'gif');
  t.true((await detect(marked.image, marked.registration)).watermarked);
  const frames = syntheticPixels(64, 128, 12);
  const animated = await sharp(frames, { raw: { width: 64, height: 128, channels: 3, pageHeight: 64 } as never }).gif().toBuffer();
  t.true(((await sharp(animated).metadata()).pages ?? 1) > 1);
  const err = await t.throwsAsync(embed(animated, generateKey()), { instanceOf: UnsupportedFormatError });
  t.is(err?.code, 'unsupported_format');
});

test('typed errors: unsupported, corrupt, too large', async (t) => {
  await t.throwsAsync(embed(Buffer.from('hello, not an image'), generateKey()), { instanceOf: UnsupportedFormatError });
  const webp = await sharp(syntheticPixels(64, 64, 1), { raw: { width: 64, height: 64, channels: 3 } }).webp().toBuffer();
  await t.throwsAsync(embed(webp, generateKey()), { instanceOf: UnsupportedFormatError });
  const jpeg = await syntheticJpeg(300, 200, 1);
  const err = await t.throwsAsync(embed(jpeg.subarray(0, 600), generateKey()), { instanceOf: CorruptImageError });
  t.is(err?.code, 'corrupt_image');
  const big = await t.throwsAsync(embed(jpeg, generateKey(), { maxPixels: 50_000 }), { instanceOf: ImageTooLargeError });
  t.is(big?.code, 'image_too_large');
  // A decompression bomb: a tiny PNG announcing 20000 x 20000 pixels is refused from its header.
  const bomb = await syntheticPng(64, 64, 1);
  bomb.writeUInt32BE(20000, 16); // IHDR width
  bomb.writeUInt32BE(20000, 20); // IHDR height
  bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29);
  await t.throwsAsync(embed(bomb, generateKey()), { instanceOf: ImageTooLargeError });
});

test('a caller-probed header (options.info) gives the same file as embed probing it, and is held to maxPixels', async (t) => {
  const jpeg = await syntheticJpeg(640, 480, 3);
  const info = await probeImage(jpeg);
  const key = generateKey();
  const probed = await embed(jpeg, key);
  const given = await embed(jpeg, key, { info });
  t.true(given.image.equals(probed.image));
  t.deepEqual(given.registration.pixelHash, probed.registration.pixelHash);
  t.is(given.report.psnr, probed.report.psnr);
  await t.throwsAsync(embed(jpeg, key, { info, maxPixels: 100_000 }), { instanceOf: ImageTooLargeError });
});

test('transactional copies are detected with the first registration reduced copy; one prepared query, many candidates', async (t) => {
  const original = await syntheticJpeg(480, 360, 21);
  const first = await embed(original, generateKey());
  const second = await embed(original, generateKey(), { transactional: true });
  t.is(second.registration.reduced, undefined);
  t.deepEqual(second.registration.pixelHash, first.registration.pixelHash);
  const copy = await sharp(second.image).resize({ width: 300 }).jpeg({ quality: 70 }).toBuffer();
  const query = await prepareQuery(copy);
  const withParent = { ...second.registration, reduced: first.registration.reduced };
  t.true((await detect(query, withParent)).watermarked);
  t.false((await detect(query, first.registration)).watermarked, 'the other copy key does not fire');
  // without any reduced copy only the blind resize hypothesis is left: still a fixed, honest family
  const blind = await detect(query, second.registration);
  t.false(blind.diagnostics.informed);
  t.is(blind.diagnostics.hypotheses, 1);
});

test('the scale model refuses what only a rotation explains', async (t) => {
  const original = await syntheticPng(500, 400, 31);
  const marked = await embed(original, generateKey());
  const rotated = await sharp(marked.image).rotate(12, { background: '#000' }).png().toBuffer();
  t.true((await detect(rotated, marked.registration, { transforms: 'affine' })).watermarked);
  const scaleOnly = await detect(rotated, marked.registration, { transforms: 'scale', ecc: false });
  t.false(scaleOnly.watermarked);
});
