import { headText } from './html-decode.js';

/** What a response really is, from its first bytes; the Content-Type header is only a hint. */
export type SniffedKind = 'html' | 'image' | 'video' | 'document' | 'other';

export function sniffKind(body: Buffer, declared: string | null): SniffedKind {
  const b = body.subarray(0, 16);
  const ascii = b.toString('latin1');
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image';
  if (ascii.startsWith('\x89PNG') || ascii.startsWith('GIF8') || ascii.startsWith('BM')) return 'image';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image';
  if (ascii.slice(4, 8) === 'ftyp') return /^(avif|avis|heic|heix|mif1)/.test(ascii.slice(8, 12)) ? 'image' : 'video';
  if (ascii.startsWith('%PDF-')) return 'document';
  if (ascii.startsWith('\x1aE\xdf\xa3')) return 'video';
  const head = headText(body).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (/^<(!doctype html|html|head|body|!--|meta|title|div|p\b|a\b|table|h[1-6])/.test(head)) return 'html';
  // Text without a recognisable tag: trust an HTML declaration only if there are no binary bytes.
  if (declared && /html|xhtml/.test(declared) && !/[\x00-\x08\x0e-\x1a]/.test(head)) return 'html';
  return 'other';
}
