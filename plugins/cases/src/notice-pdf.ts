import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { NoticeDocument, Paragraph } from './notice-document.js';

// DejaVu Sans (npm dejavu-fonts-ttf, the same files as Debian's fonts-dejavu-core): the accents of
// French and the names of any European notifier (Ł, Ř, Ω, Я...), which the 14 standard PDF fonts
// (WinAnsi) lack. Embedded as a subset, so a notice stays small.
const FONT_DIR = join(dirname(createRequire(__filename).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
let fonts: Promise<[Uint8Array, Uint8Array]> | null = null;
const fontBytes = () => (fonts ??= Promise.all([readFile(join(FONT_DIR, 'DejaVuSans.ttf')), readFile(join(FONT_DIR, 'DejaVuSans-Bold.ttf'))]));

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const WIDTH = A4[0] - 2 * MARGIN;

/** Characters the font has: anything else (emoji, CJK) becomes '?', so the text never fails to draw. */
function drawable(font: PDFFont, text: string): string {
  const set = new Set(font.getCharacterSet());
  let out = '';
  for (const ch of text) out += set.has(ch.codePointAt(0)!) ? ch : '?';
  return out;
}

/** Lines of at most `width` points: breaks at spaces, and inside words (URLs, hashes) longer than a line. */
function wrap(font: PDFFont, size: number, text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
  for (const word of text.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    let rest = word;
    while (!fits(rest)) {
      let n = rest.length - 1;
      while (n > 1 && !fits(rest.slice(0, n))) n--;
      lines.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    line = rest;
  }
  lines.push(line);
  return lines;
}

/** The notice as an A4 PDF with its text selectable (checked by reading it back with pdftotext). */
export async function noticePdf(doc: NoticeDocument, meta: { author: string; created: Date }): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const [regularBytes, boldBytes] = await fontBytes();
  const regular = await pdf.embedFont(regularBytes, { subset: true });
  const bold = await pdf.embedFont(boldBytes, { subset: true });
  pdf.setTitle(doc.title);
  pdf.setSubject(doc.subtitle);
  pdf.setAuthor(drawable(regular, meta.author));
  pdf.setCreator('Filigrane');
  pdf.setProducer('Filigrane (pdf-lib)');
  pdf.setCreationDate(meta.created);
  pdf.setModificationDate(meta.created);

  let page: PDFPage = pdf.addPage(A4);
  let y = A4[1] - MARGIN;
  const line = (text: string, font: PDFFont, size: number, x = MARGIN, width = WIDTH) => {
    for (const l of wrap(font, size, drawable(font, text), width)) {
      if (y - size < MARGIN) {
        page = pdf.addPage(A4);
        y = A4[1] - MARGIN;
      }
      y -= size * 1.35;
      page.drawText(l, { x, y, size, font, color: rgb(0, 0, 0) });
    }
  };
  line(doc.title, bold, 16);
  line(doc.subtitle, regular, 10);
  y -= 10;
  for (const [k, v] of doc.header) line(`${k}: ${v}`, regular, 10);
  for (const s of doc.sections) {
    y -= 10;
    line(s.heading, bold, 11.5);
    y -= 2;
    for (const p of s.paragraphs) paragraph(p);
  }
  function paragraph(p: Paragraph) {
    const indent = p.bullet || p.indent ? 14 : 0;
    if (p.bullet) {
      if (y - 10 < MARGIN) {
        page = pdf.addPage(A4);
        y = A4[1] - MARGIN;
      }
      page.drawText('•', { x: MARGIN + 3, y: y - 10 * 1.35, size: 10, font: regular });
    }
    line(p.text, regular, 10, MARGIN + indent, WIDTH - indent);
    if (!p.bullet && !p.indent) y -= 4;
  }
  return Buffer.from(await pdf.save());
}
