import { createInflate } from 'node:zlib';
import { decodePDFRawStream, PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFRef, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { DocumentError } from './document-error.js';

/** Bounds on what a document may expand to, checked before pdf.js reads it (pdf.js has none). */
export interface ComplexityLimits {
  /** Largest decoded stream other than an image (content streams, forms, fonts). */
  maxStreamBytes: number;
  /** Images and forms a page may paint, nested forms expanded (pdf.js expands each use of a form). */
  maxPaintsPerPage: number;
}

export const COMPLEXITY_LIMITS: ComplexityLimits = { maxStreamBytes: 64 * 1024 * 1024, maxPaintsPerPage: 100_000 };

const MiB = 1024 * 1024;
// Filters pdf-lib decodes; the others (DCT, JPX, CCITT, JBIG2) are bounded by the image's declared size.
const EXPANDING = new Set(['/FlateDecode', '/Fl', '/LZWDecode', '/LZW', '/RunLengthDecode', '/RL', '/ASCII85Decode', '/A85', '/ASCIIHexDecode', '/AHx']);
const tooComplex = (details: string) => new DocumentError('pdf_too_complex', details);
const num = (o: PDFObject | undefined) => (o instanceof PDFNumber ? o.asNumber() : 0);

/** Decoded size of zlib data, counted as it streams (nothing kept), stopping past `cap`. */
function inflatedSize(data: Uint8Array, cap: number): Promise<number> {
  return new Promise((resolve) => {
    const z = createInflate();
    let n = 0;
    z.on('data', (c: Buffer) => {
      n += c.length;
      if (n > cap) {
        z.destroy();
        resolve(n);
      }
    });
    // A damaged stream counts what it gave (pdf.js reads as far as it can too).
    z.on('end', () => resolve(n)).on('error', () => resolve(n));
    z.end(data);
  });
}

/** The stream's filters that expand data, in order, up to the first one they do not cover. */
function expandingFilters(stream: PDFRawStream): { names: string[]; parms: PDFObject[] } {
  const f = stream.dict.lookup(PDFName.of('Filter'));
  const p = stream.dict.lookup(PDFName.of('DecodeParms'));
  const names = f instanceof PDFName ? [f.asString()] : f instanceof PDFArray ? f.asArray().map((x) => (x instanceof PDFName ? x.asString() : '')) : [];
  const parms = p instanceof PDFArray ? p.asArray() : p ? [p] : [];
  const n = names.findIndex((x) => !EXPANDING.has(x));
  return { names: n < 0 ? names : names.slice(0, n), parms };
}

/** Decoded size of a stream through its expanding filters, stopping past `cap` (memory stays near `cap`). */
export async function decodedSize(stream: PDFRawStream, cap: number, ctx: PDFContext): Promise<number> {
  const { names, parms } = expandingFilters(stream);
  if (!names.length) return stream.contents.length;
  // The common case, one Flate filter, by zlib without keeping the output.
  if (names.length === 1 && (names[0] === '/FlateDecode' || names[0] === '/Fl')) return inflatedSize(stream.contents, cap);
  const dict = stream.dict.clone(ctx);
  dict.set(PDFName.of('Filter'), ctx.obj(names.map((x) => PDFName.of(x.slice(1)))));
  dict.set(PDFName.of('DecodeParms'), ctx.obj(names.map((_, i) => parms[i] ?? null)));
  try {
    const decoded = decodePDFRawStream(PDFRawStream.of(dict, stream.contents));
    let n = 0;
    for (;;) {
      const chunk = decoded.getBytes(MiB);
      if (!chunk.length) return n;
      n += chunk.length;
      if (n > cap) return n;
    }
  } catch {
    return 0; // pdf.js refuses what pdf-lib cannot decode
  }
}

/** Bytes an image XObject's pixels take, as declared (the decoder needs no more). */
function declaredImageBytes(dict: PDFDict): number {
  const w = num(dict.lookup(PDFName.of('Width')));
  const h = num(dict.lookup(PDFName.of('Height')));
  const bpc = num(dict.lookup(PDFName.of('BitsPerComponent'))) || 8;
  // At most 4 components (CMYK) of 16 bits, plus a predictor byte per row.
  return Math.ceil((w * 4 * Math.min(bpc, 16)) / 8) * h + h;
}

/**
 * Refuses compression bombs: a stream that decodes to more than allowed (a content stream of 1 GiB of
 * spaces in 1 MiB of Flate, an image stream far larger than its declared pixels). pdf.js would
 * inflate each whole into memory in the process's only thread.
 */
export async function checkStreamSizes(ctx: PDFContext, limits: ComplexityLimits): Promise<void> {
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
    if (!(obj instanceof PDFRawStream) || !expandingFilters(obj).names.length) continue;
    const isImage = obj.dict.lookup(PDFName.of('Subtype')) === PDFName.of('Image');
    // An image stream may carry some slack past its pixels; far more is no picture.
    const cap = isImage ? 2 * declaredImageBytes(obj.dict) + MiB : limits.maxStreamBytes;
    const size = await decodedSize(obj, cap, ctx);
    if (size > cap) {
      throw tooComplex(`Object ${ref.objectNumber} decompresses to more than ${Math.round(cap / MiB)} MiB (${obj.contents.length} bytes compressed): the document looks like a compression bomb.`);
    }
  }
}

/** `Do` operators of a content stream, by XObject name. */
function doNames(content: Uint8Array): string[] {
  const text = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('latin1');
  return [...text.matchAll(/\/([^\s/[\]()<>{}%]+)\s*Do(?![^\s/[\]()<>{}%])/g)].map((m) => m[1]!.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
}

function decode(stream: PDFRawStream): Uint8Array {
  try {
    return stream.dict.has(PDFName.of('Filter')) ? decodePDFRawStream(stream).decode() : stream.contents;
  } catch {
    return new Uint8Array(0);
  }
}

/**
 * Refuses pages that paint more images and forms than allowed once nested forms are expanded: a
 * form drawing another ten times, eight levels deep, is 10^8 paints in a 2 KiB file, and pdf.js
 * builds every one of them in memory. Each form is counted once (memoised); cycles count once
 * (pdf.js stops them).
 */
export function checkPaintFanOut(ctx: PDFContext, pages: { resources: PDFDict | undefined; contents: PDFRawStream[] }[], limits: ComplexityLimits): void {
  const memo = new Map<string, number>();
  const paints = (content: Uint8Array, resources: PDFDict | undefined, stack: Set<string>): number => {
    const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
    let total = 0;
    for (const name of doNames(content)) {
      total += 1;
      const ref = xobjects?.get(PDFName.of(name));
      const form = ref instanceof PDFRef ? ctx.lookup(ref) : ref;
      if (!(form instanceof PDFRawStream) || form.dict.lookup(PDFName.of('Subtype')) !== PDFName.of('Form')) continue;
      const key = ref instanceof PDFRef ? ref.toString() : '';
      if (key && stack.has(key)) continue;
      let cost = key ? memo.get(key) : undefined;
      if (cost === undefined) {
        if (key) stack.add(key);
        // A form without resources of its own uses those of where it is painted.
        cost = paints(decode(form), form.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources, stack);
        if (key) {
          stack.delete(key);
          memo.set(key, cost);
        }
      }
      total += cost;
      if (total > limits.maxPaintsPerPage) return total;
    }
    return total;
  };
  pages.forEach(({ resources, contents }, i) => {
    let total = 0;
    for (const c of contents) total += paints(decode(c), resources, new Set());
    if (total > limits.maxPaintsPerPage) {
      throw tooComplex(`Page ${i + 1} paints more than ${limits.maxPaintsPerPage} images and forms once its nested forms are expanded.`);
    }
  });
}
