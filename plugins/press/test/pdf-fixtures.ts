import { constants, deflateRawSync } from 'node:zlib';
import { PDFDocument as EncryptingDocument, type EncryptionAlgorithm } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { degrees, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString, StandardFonts } from 'pdf-lib';

export { scannedPage } from '@filigrane/plugin-press';

export interface IssueParts {
  /** Page 1: JPEG with a credit line below. */
  jpeg: Buffer;
  /** Page 2: PNG with a rotated credit line along its right edge. */
  png: Buffer;
  /** Page 2: a CMYK JPEG. */
  cmyk: Buffer;
  /** Page 3: a scanned page (no text layer). */
  scan: Buffer;
  credits: { page1: string; page2: string };
}

/**
 * A four-page issue: (1) a JPEG with "© ..." below it; (2) a PNG with a rotated credit line and a
 * CMYK JPEG inside a form XObject; (3) a scan; (4) the page-1 JPEG again.
 */
export async function composeIssue(parts: IssueParts): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const jpeg = await doc.embedJpg(parts.jpeg);
  const p1 = doc.addPage([595, 842]);
  p1.drawText('LE QUOTIDIEN', { x: 50, y: 790, size: 28, font });
  p1.drawImage(jpeg, { x: 50, y: 420, width: 400, height: 300 });
  p1.drawText(parts.credits.page1, { x: 50, y: 408, size: 8, font });
  p1.drawText('Un texte d\'article sans rapport avec la photo.', { x: 50, y: 300, size: 11, font });

  const p2 = doc.addPage([595, 842]);
  p2.drawImage(await doc.embedPng(parts.png), { x: 60, y: 460, width: 360, height: 270 });
  p2.drawText(parts.credits.page2, { x: 432, y: 470, size: 7, font, rotate: degrees(90) });
  // The CMYK photo inside a form XObject (an embedded page), as layout tools place adverts.
  const inner = await PDFDocument.create();
  const ip = inner.addPage([300, 225]);
  ip.drawImage(await inner.embedJpg(parts.cmyk), { x: 0, y: 0, width: 300, height: 225 });
  const [form] = await doc.embedPdf(await inner.save());
  p2.drawPage(form!, { x: 60, y: 80, width: 300, height: 225 });
  p2.drawText('Publicité', { x: 60, y: 60, size: 9, font });

  const p3 = doc.addPage([595, 842]);
  p3.drawImage(await doc.embedJpg(parts.scan), { x: 0, y: 0, width: 595, height: 842 });

  const p4 = doc.addPage([595, 842]);
  p4.drawImage(jpeg, { x: 100, y: 100, width: 200, height: 150 });
  p4.drawText('Rappel de la une', { x: 100, y: 90, size: 8, font });
  return Buffer.from(await doc.save());
}

/** A valid PDF whose catalog opens with JavaScript. */
export async function pdfWithJavaScript(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const action = doc.context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of('app.alert("hi")') });
  doc.catalog.set(PDFName.of('OpenAction'), doc.context.register(action));
  return Buffer.from(await doc.save());
}

/** A PDF with an image XObject declaring 100,000 x 100,000 pixels (a few bytes of data). */
export async function pdfWithHugeImage(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  const stream = doc.context.stream(new Uint8Array(16), {
    Type: 'XObject', Subtype: 'Image', Width: PDFNumber.of(100_000), Height: PDFNumber.of(100_000), ColorSpace: 'DeviceGray', BitsPerComponent: 8,
  });
  const ref = doc.context.register(stream);
  page.node.setXObject(PDFName.of('Im0'), ref);
  const content = doc.context.stream('q 200 0 0 200 0 0 cm /Im0 Do Q');
  page.node.set(PDFName.of('Contents'), doc.context.register(content));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A PDF encrypted with a user password (standard security handler, RC4 40-bit), hand-written. */
export function encryptedPdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${'a1'.repeat(32)}> /U <${'b2'.repeat(32)}> /P -44 >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${'c3'.repeat(16)}> <${'c3'.repeat(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A PDF with an embedded file attachment. */
export async function pdfWithAttachment(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  await doc.attach(Buffer.from('hello'), 'note.txt', { mimeType: 'text/plain' });
  return Buffer.from(await doc.save());
}

/** One page with an indexed (2-colour palette) image and a 1-bit image, written as raw XObjects. */
export async function pdfWithIndexedAndBilevel(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  const size = 64;
  const indexed = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) indexed[y * size + x] = x < size / 2 ? 0 : 1;
  const palette = PDFHexString.of('ff0000' + '0000ff');
  const im1 = doc.context.register(doc.context.stream(indexed, {
    Type: 'XObject', Subtype: 'Image', Width: size, Height: size, BitsPerComponent: 8,
    ColorSpace: doc.context.obj([PDFName.of('Indexed'), PDFName.of('DeviceRGB'), 1, palette]),
  }));
  // 1 bit per pixel, rows of 8 bytes: top half black (0), bottom half white (1).
  const bits = new Uint8Array((size / 8) * size);
  for (let y = size / 2; y < size; y++) bits.fill(0xff, y * (size / 8), (y + 1) * (size / 8));
  const im2 = doc.context.register(doc.context.stream(bits, { Type: 'XObject', Subtype: 'Image', Width: size, Height: size, BitsPerComponent: 1, ColorSpace: 'DeviceGray' }));
  page.node.setXObject(PDFName.of('Ix'), im1);
  page.node.setXObject(PDFName.of('Bw'), im2);
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream('q 100 0 0 100 20 50 cm /Ix Do Q q 100 0 0 100 160 50 cm /Bw Do Q')));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A photo printed as two tiles (left and right halves, separate JPEG images placed edge to edge). */
export async function pdfWithTiledPhoto(photo: Buffer): Promise<Buffer> {
  const { width, height } = await sharp(photo).metadata();
  const half = Math.floor(width! / 2);
  const left = await sharp(photo).extract({ left: 0, top: 0, width: half, height: height! }).jpeg({ quality: 90 }).toBuffer();
  const right = await sharp(photo).extract({ left: half, top: 0, width: width! - half, height: height! }).jpeg({ quality: 90 }).toBuffer();
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const h = 300;
  const w = (h * width!) / height!;
  const wl = (w * half) / width!;
  page.drawImage(await doc.embedJpg(left), { x: 50, y: 400, width: wl, height: h });
  page.drawImage(await doc.embedJpg(right), { x: 50 + wl, y: 400, width: w - wl, height: h });
  return Buffer.from(await doc.save());
}

/** A document of `pages` blank pages. */
export async function blankPages(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([100, 100]);
  return Buffer.from(await doc.save());
}

/** One page whose only content is a form drawing the next form ten times, eight levels deep (10^8 paints in 2 KiB). */
export async function pdfWithFormFanOut(levels = 8): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  let inner = doc.context.register(doc.context.stream('0 0 1 1 re f', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 200, 200] }));
  for (let i = 0; i < levels; i++) {
    const resources = doc.context.obj({ XObject: { F: inner } });
    inner = doc.context.register(doc.context.stream('/F Do '.repeat(10), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 200, 200], Resources: resources }));
  }
  page.node.setXObject(PDFName.of('F'), inner);
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream('/F Do')));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/**
 * Zlib data of `mib` MiB of one byte, made without deflating them all: one MiB deflated and ended
 * on a byte boundary (sync flush), repeated, then a final empty block and the Adler-32 of the whole.
 * Gigabytes cost a few milliseconds (2 GiB is 2 MiB of Flate).
 */
export function repeatedFlate(byte: number, mib: number): Buffer {
  const segment = deflateRawSync(Buffer.alloc(1024 * 1024, byte), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const n = BigInt(mib) * 1024n * 1024n;
  const a = (1n + n * BigInt(byte)) % 65521n;
  const b = (n + (BigInt(byte) * n * (n + 1n)) / 2n) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(mib).fill(segment), Buffer.from([0x03, 0x00]), adler]);
}

/** The PDF encrypted with the standard security handler, opening without a password unless `userPassword` is given. */
export async function encryptPdf(pdf: Buffer, algorithm: EncryptionAlgorithm, userPassword = ''): Promise<Buffer> {
  const doc = await EncryptingDocument.load(pdf, { updateMetadata: false });
  doc.encrypt({ ownerPassword: 'owner', userPassword, algorithm, allowWeakCryptography: true });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/**
 * A compression bomb: Flate data of `mib` MiB of zeros, as the page's content stream or as the
 * data of a 64 x 64 grey image (which needs 4 KiB).
 */
export async function pdfWithFlateBomb(where: 'content' | 'image', mib: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  const bomb = repeatedFlate(where === 'content' ? 0x20 : 0x80, mib);
  if (where === 'content') {
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(bomb, { Filter: 'FlateDecode' })));
  } else {
    const image = doc.context.register(doc.context.stream(bomb, { Type: 'XObject', Subtype: 'Image', Width: 64, Height: 64, ColorSpace: 'DeviceGray', BitsPerComponent: 8, Filter: 'FlateDecode' }));
    page.node.setXObject(PDFName.of('Im0'), image);
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream('q 100 0 0 100 50 50 cm /Im0 Do Q')));
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A page tree that lists itself among its kids (pdf.js: "Pages tree contains circular reference"). */
export async function pdfWithPageTreeLoop(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const pages = doc.catalog.Pages();
  pages.Kids().push(doc.catalog.get(PDFName.of('Pages'))!);
  pages.set(PDFName.of('Count'), PDFNumber.of(2));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
