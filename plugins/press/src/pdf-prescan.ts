import { PDFArray, PDFDict, PDFDocument, type LoadOptions, PDFName, PDFNumber, PDFRawStream, PDFRef, type PDFObject } from '@cantoo/pdf-lib';
import { DocumentError } from './document-error.js';
import { checkPaintFanOut, checkStreamSizes, COMPLEXITY_LIMITS } from './pdf-complexity.js';

/** A JPEG stream placed on a page as it is (RGB or grey, no mask): its bytes are the printed file. */
export interface RawJpeg {
  width: number;
  height: number;
  bytes: Buffer;
}

export interface PrescanResult {
  /** Raw JPEG image XObjects of each page's own resources, by page number. */
  rawJpegs: Map<number, RawJpeg[]>;
}

const name = (o: PDFObject | undefined) => (o instanceof PDFName ? o.asString() : null);
const num = (o: PDFObject | undefined) => (o instanceof PDFNumber ? o.asNumber() : null);

/**
 * Checks a PDF before anything is decoded: truncated files, password encryption, active content
 * (JavaScript, embedded files), images declaring more pixels than allowed, compression bombs and
 * form fan-outs are refused; raw JPEG streams are collected per page (pdf-lib reaches the streams,
 * pdf.js only gives pixels). An encrypted document that opens without a password (owner password
 * only, as pdf.js reads it) is decrypted first, so every check applies to it too. The reader is
 * @cantoo/pdf-lib, pdf-lib's maintained fork, which also decrypts (RC4 and AES, revisions 2 to 6).
 */
export async function prescanPdf(data: Buffer, maxImagePixels: number): Promise<PrescanResult> {
  try {
    return await scan(data, maxImagePixels);
  } catch (err) {
    // pdf-lib is stricter than pdf.js: what it cannot walk, pdf.js may still read (or refuse).
    if (err instanceof DocumentError) throw err;
    return { rawJpegs: new Map() };
  }
}

async function scan(data: Buffer, maxImagePixels: number): Promise<PrescanResult> {
  if (data.subarray(0, 1024).indexOf('%PDF-') < 0) throw new DocumentError('pdf_invalid', 'The file is not a PDF (no %PDF- header).');
  // A complete file ends with %%EOF (possibly followed by a little whitespace or garbage).
  if (data.subarray(Math.max(0, data.length - 2048)).indexOf('%%EOF') < 0) throw new DocumentError('pdf_truncated', 'The PDF is truncated (no %%EOF marker at its end).');
  const options = { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false };
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(data, options);
  } catch (err) {
    // pdf-lib is stricter than pdf.js: a file it cannot parse may still be readable; pdf.js decides.
    void err;
    return { rawJpegs: new Map() };
  }
  if (doc.isEncrypted) doc = await decrypted(data, options);
  const ctx = doc.context;
  const visit = (o: PDFObject | undefined, depth: number): void => {
    if (!o || depth > 8) return;
    const dict = o instanceof PDFRawStream ? o.dict : o instanceof PDFDict ? o : null;
    if (dict) {
      const keys = dict.keys().map((k) => k.asString());
      if (keys.includes('/JS') || name(dict.get(PDFName.of('S'))) === '/JavaScript' || keys.includes('/JavaScript')) {
        throw new DocumentError('pdf_javascript', 'The PDF carries JavaScript; documents with active content are refused.');
      }
      if (keys.includes('/EmbeddedFiles') || keys.includes('/EF') || name(dict.get(PDFName.of('Type'))) === '/EmbeddedFile') {
        throw new DocumentError('pdf_embedded_files', 'The PDF carries embedded files; documents with attachments are refused.');
      }
      if (o instanceof PDFRawStream && name(dict.get(PDFName.of('Subtype'))) === '/Image') {
        const w = num(dict.lookup(PDFName.of('Width'))) ?? 0;
        const h = num(dict.lookup(PDFName.of('Height'))) ?? 0;
        if (w * h > maxImagePixels) {
          throw new DocumentError('image_too_large', `An image declares ${w} x ${h} pixels; at most ${maxImagePixels} pixels per image are decoded.`);
        }
      }
      for (const [, v] of dict.entries()) if (!(v instanceof PDFRef)) visit(v, depth + 1);
    } else if (o instanceof PDFArray) {
      for (const v of o.asArray()) if (!(v instanceof PDFRef)) visit(v, depth + 1);
    }
  };
  for (const [, obj] of ctx.enumerateIndirectObjects()) visit(obj, 0);
  await checkStreamSizes(ctx, COMPLEXITY_LIMITS);
  checkPaintFanOut(ctx, doc.getPages().map((page) => {
    const c = page.node.Contents();
    const list = c instanceof PDFArray ? c.asArray().map((r) => ctx.lookup(r)) : [c];
    return { resources: page.node.Resources(), contents: list.filter((x): x is PDFRawStream => x instanceof PDFRawStream) };
  }), COMPLEXITY_LIMITS);

  const rawJpegs = new Map<number, RawJpeg[]>();
  doc.getPages().forEach((page, i) => {
    const xobjects = page.node.Resources()?.lookupMaybe(PDFName.of('XObject'), PDFDict);
    if (!xobjects) return;
    const list: RawJpeg[] = [];
    for (const [, ref] of xobjects.entries()) {
      const stream = ctx.lookup(ref);
      if (!(stream instanceof PDFRawStream)) continue;
      const raw = rawJpeg(stream, ctx);
      if (raw) list.push(raw);
    }
    if (list.length) rawJpegs.set(i + 1, list);
  });
  return { rawJpegs };
}

/**
 * The document decrypted with the empty user password, as pdf.js opens it. Fails closed: an
 * encrypted document whose streams cannot be decrypted here is refused, never handed to pdf.js
 * unchecked (a crafted Encrypt dictionary that only pdf.js reads would skip every check).
 */
async function decrypted(data: Buffer, options: LoadOptions): Promise<PDFDocument> {
  let doc: PDFDocument | null = null;
  let reason = '';
  try {
    doc = await PDFDocument.load(data, { ...options, password: '' });
  } catch (err) {
    reason = (err as Error).message;
  }
  if (doc?.context.isDecrypted) return doc;
  if (/password/i.test(reason)) throw new DocumentError('pdf_encrypted', 'The document is encrypted with a password.');
  throw new DocumentError('pdf_encrypted', 'The document is encrypted in a way that cannot be read (not the standard security handler, or a damaged encryption dictionary).');
}

/** The stream's bytes when they are a plain JPEG file whose decoding pdf.js would not alter. */
function rawJpeg(stream: PDFRawStream, ctx: PDFDocument['context']): RawJpeg | null {
  const d = stream.dict;
  if (name(d.get(PDFName.of('Subtype'))) !== '/Image') return null;
  const filter = d.lookup(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray().map((f) => name(f)) : [name(filter)];
  if (filters.length !== 1 || filters[0] !== '/DCTDecode') return null;
  for (const k of ['SMask', 'Mask', 'Decode', 'ImageMask']) if (d.has(PDFName.of(k))) return null;
  if ((num(d.lookup(PDFName.of('BitsPerComponent'))) ?? 8) !== 8) return null;
  const cs = d.lookup(PDFName.of('ColorSpace'));
  let ok = false;
  if (cs instanceof PDFName) ok = cs.asString() === '/DeviceRGB' || cs.asString() === '/DeviceGray';
  else if (cs instanceof PDFArray && name(cs.get(0)) === '/ICCBased') {
    const icc = ctx.lookup(cs.get(1));
    const n = icc instanceof PDFRawStream ? num(icc.dict.lookup(PDFName.of('N'))) : null;
    ok = n === 3 || n === 1;
  }
  if (!ok) return null;
  const bytes = Buffer.from(stream.contents);
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const width = num(d.lookup(PDFName.of('Width'))) ?? 0;
  const height = num(d.lookup(PDFName.of('Height'))) ?? 0;
  return { width, height, bytes };
}
