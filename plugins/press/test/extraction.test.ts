import { createHash } from 'node:crypto';
import test from 'ava';
import sharp from 'sharp';
import { syntheticPhoto } from '@filigrane/vision';
import { DocumentError, extractPdf, extractPdfInWorker, TesseractOcr, type ExtractedPage } from '@filigrane/plugin-press';
import { blankPages, composeIssue, encryptPdf, encryptedPdf, pdfWithTiledPhoto, pdfWithAttachment, pdfWithHugeImage, pdfWithIndexedAndBilevel, pdfWithJavaScript, pdfWithFlateBomb, pdfWithFormFanOut, pdfWithPageTreeLoop, scannedPage } from './pdf-fixtures.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const ocr = new TesseractOcr();
test.after.always(() => ocr.close());

/** Mean absolute difference of two images over a 32 x 32 RGB thumbnail. */
async function difference(a: Buffer, b: Buffer): Promise<number> {
  const t = (x: Buffer) => sharp(x).removeAlpha().toColourspace('srgb').resize(32, 32, { fit: 'fill' }).raw().toBuffer();
  const [ta, tb] = await Promise.all([t(a), t(b)]);
  let d = 0;
  for (let i = 0; i < ta.length; i++) d += Math.abs(ta[i]! - tb[i]!);
  return d / ta.length;
}

async function all(data: Buffer, options: Parameters<typeof extractPdf>[1] = {}): Promise<ExtractedPage[]> {
  const pages: ExtractedPage[] = [];
  for await (const p of extractPdf(data, options)) pages.push(p);
  return pages;
}

let photos: Buffer[];
let jpeg: Buffer;
let issue: Buffer;

test.before(async () => {
  photos = await Promise.all([41, 42, 43, 44].map((s) => syntheticPhoto(s)));
  jpeg = await sharp(photos[0]).jpeg({ quality: 90 }).toBuffer();
  issue = await composeIssue({
    jpeg,
    png: await sharp(photos[1]).png().toBuffer(),
    cmyk: await sharp(photos[2]).toColourspace('cmyk').jpeg({ quality: 92 }).toBuffer(),
    scan: await scannedPage(photos[3]!, '© Marie Curie / Agence Lumière'),
    credits: { page1: '© Jean Dupont / Agence Exemple', page2: 'Photo : Claire Martin' },
  });
});

test('every image of every page, with placement boxes, raw JPEG bytes kept and CMYK decoded', async (t) => {
  const pages = await all(issue, { ocr });
  t.deepEqual(pages.map((p) => p.images.length), [1, 2, 1, 1]);

  const [first] = pages[0]!.images;
  t.is(first!.format, 'jpeg');
  t.is(first!.md5, md5(jpeg), 'the JPEG stream is taken as it is: no generation lost');
  t.deepEqual(first!.boxes.map((b) => [b.x, b.y, b.width, b.height].map(Math.round)), [[50, 122, 400, 300]], 'box in points from the top-left corner');
  t.is(first!.credit, '© Jean Dupont / Agence Exemple');
  t.is(first!.creditSource, 'text');

  const [png, cmyk] = pages[1]!.images;
  t.is(png!.format, 'png');
  t.true((await difference(png!.bytes, photos[1]!)) < 4);
  t.is(png!.credit, 'Photo : Claire Martin', 'a rotated line along the right edge');
  t.true(cmyk!.decoded);
  const cmykDiff = await difference(cmyk!.bytes, photos[2]!);
  const inverted = await difference(await sharp(cmyk!.bytes).negate({ alpha: false }).toBuffer(), photos[2]!);
  t.true(cmykDiff < 30 && cmykDiff < inverted / 2, `CMYK decoded with the right polarity (diff ${cmykDiff.toFixed(1)}, inverted ${inverted.toFixed(1)})`);
  t.deepEqual(cmyk!.boxes.map((b) => [b.x, b.y, b.width, b.height].map(Math.round)), [[60, 537, 300, 225]], 'an image inside a form keeps its page placement');

  t.false(pages[2]!.hasText);
  const scan = pages[2]!.images[0]!;
  t.is(scan.creditSource, 'ocr');
  t.regex(scan.credit ?? '', /Marie Curie/);

  t.is(pages[3]!.images[0]!.md5, first!.md5, 'a repeated image is the same analysed image');
});

test('a photo printed as tiles is also rendered as one picture; pages without tiles are not rendered', async (t) => {
  const [page] = await all(await pdfWithTiledPhoto(photos[0]!));
  t.is(page!.images.length, 3);
  const rendered = page!.images.find((i) => i.rendered);
  t.truthy(rendered);
  t.deepEqual(rendered!.boxes.map((b) => [b.x, b.y, b.height].map(Math.round)), [[50, 142, 300]]);
  t.true((await difference(rendered!.bytes, photos[0]!)) < 12, 'the rendered region is the whole photo');
  t.false((await all(issue)).some((p) => p.images.some((i) => i.rendered)));
});

test('indexed and 1-bit images are decoded to their colours', async (t) => {
  const [page] = await all(await pdfWithIndexedAndBilevel(), { limits: { minImageSide: 16 } });
  t.is(page!.images.length, 2);
  const [indexed, bilevel] = page!.images;
  const px = async (b: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(b).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const i = (y * info.width + x) * info.channels;
    return [...data.subarray(i, i + info.channels)];
  };
  t.deepEqual(await px(indexed!.bytes, 5, 5), [255, 0, 0]);
  t.deepEqual(await px(indexed!.bytes, 60, 5), [0, 0, 255]);
  t.deepEqual((await px(bilevel!.bytes, 5, 5))[0], 0);
  t.deepEqual((await px(bilevel!.bytes, 5, 60))[0], 255);
});

const refused = async (data: Buffer, limits = {}) => {
  try {
    await all(data, { limits });
  } catch (err) {
    return err instanceof DocumentError ? err.code : `not a DocumentError: ${(err as Error).message}`;
  }
  return 'accepted';
};

test('bad documents are refused with a reason', async (t) => {
  t.is(await refused(issue.subarray(0, Math.floor(issue.length / 2))), 'pdf_truncated');
  t.is(await refused(Buffer.from('%PDF-1.7\nnot really a pdf at all\n%%EOF\n')), 'pdf_invalid');
  t.is(await refused(Buffer.from('GIF89a')), 'pdf_invalid');
  t.is(await refused(encryptedPdf()), 'pdf_encrypted');
  t.is(await refused(await pdfWithJavaScript()), 'pdf_javascript');
  t.is(await refused(await pdfWithAttachment()), 'pdf_embedded_files');
  t.is(await refused(await pdfWithHugeImage()), 'image_too_large');
  t.is(await refused(issue, { maxPages: 3 }), 'too_many_pages');
  t.is(await refused(await blankPages(3000)), 'too_many_pages', 'thousands of pages, refused before any is read (default limit 2,000)');
  t.is(await refused(issue, { timeoutMs: 1 }), 'timeout');
});

test('compression bombs and nested form fan-outs are refused before pdf.js expands them; a damaged page tree is pdf_invalid', async (t) => {
  t.timeout(180_000); // before the checks, each of these held the thread for many minutes and gigabytes
  t.is(await refused(await pdfWithFormFanOut()), 'pdf_too_complex', '10^8 form paints in 2 KiB');
  t.is(await refused(await pdfWithFlateBomb('content', 128)), 'pdf_too_complex', '128 MiB of content stream in 128 KiB');
  t.is(await refused(await pdfWithFlateBomb('image', 16)), 'pdf_too_complex', '16 MiB of data for a 64 x 64 image');
  t.is(await refused(await pdfWithFormFanOut(3)), 'accepted', '1,000 paints: a busy page, not a bomb');
  t.is(await refused(await pdfWithPageTreeLoop()), 'pdf_invalid');
});

test('encrypted documents that open without a password get the same checks: bombs and fan-outs refused, the rest read', async (t) => {
  t.timeout(120_000);
  // pdf.js decrypts these (empty user password); the prescan used to skip their encrypted streams.
  for (const algorithm of ['AES-256', 'AES-128', 'RC4-128', 'RC4-40'] as const) {
    t.is(await refused(await encryptPdf(await pdfWithFlateBomb('content', 1024), algorithm)), 'pdf_too_complex', `${algorithm}: 1 GiB of content stream`);
  }
  t.is(await refused(await encryptPdf(await pdfWithFlateBomb('image', 16), 'AES-256')), 'pdf_too_complex', 'an image stream far past its pixels');
  t.is(await refused(await encryptPdf(await pdfWithFormFanOut(), 'RC4-128')), 'pdf_too_complex', 'a fan-out in encrypted content streams');
  t.is(await refused(await encryptPdf(await pdfWithJavaScript(), 'AES-256')), 'pdf_javascript');
  t.is(await refused(await encryptPdf(issue, 'AES-256', 'secret')), 'pdf_encrypted', 'a user password is still needed');
  // Without its /ID, AES-256 still opens in pdf.js (revision 6 does not use it) but not in the
  // prescan's reader: refused rather than handed to pdf.js unchecked.
  const sealed = (await encryptPdf(await pdfWithFlateBomb('content', 1024), 'AES-256')).toString('latin1');
  const id = sealed.lastIndexOf('/ID');
  const noId = sealed.slice(0, id) + ' '.repeat(sealed.indexOf(']', id) + 1 - id) + sealed.slice(sealed.indexOf(']', id) + 1);
  t.is(await refused(Buffer.from(noId, 'latin1')), 'pdf_encrypted', 'an encryption the prescan cannot read');
  // A sound encrypted issue is read as the plain one, its JPEG taken as printed (decrypted).
  const pages = await all(await encryptPdf(issue, 'AES-256'));
  t.deepEqual(pages.map((p) => p.images.length), [1, 2, 1, 1]);
  t.is(pages[0]!.images[0]!.md5, md5(jpeg));
});

test('in a worker thread (as the services run it): the same pages and renderings, refusals with their code, progress reported', async (t) => {
  const inThread = await all(issue);
  const totals: number[] = [];
  const inWorker: ExtractedPage[] = [];
  for await (const p of extractPdfInWorker(issue, { onStart: (n) => void totals.push(n) })) inWorker.push(p);
  t.deepEqual(totals, [4]);
  t.deepEqual(inWorker, inThread);
  t.true(Buffer.isBuffer(inWorker[0]!.images[0]!.bytes));
  // Rendering (@napi-rs/canvas) works there too: a tiled photo gives its rendered region.
  const tiled = await pdfWithTiledPhoto(photos[0]!);
  const rendered: ExtractedPage[] = [];
  for await (const p of extractPdfInWorker(tiled)) rendered.push(p);
  t.deepEqual(rendered, await all(tiled));
  t.true(rendered[0]!.images.some((im) => im.rendered));
  const error = await t.throwsAsync(async () => {
    for await (const _ of extractPdfInWorker(await encryptPdf(await pdfWithFlateBomb('content', 256), 'RC4-128')));
  });
  t.true(error instanceof DocumentError);
  t.is((error as DocumentError).code, 'pdf_too_complex');
});
