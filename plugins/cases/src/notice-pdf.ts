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

// Characters DejaVu lacks (Chinese, Japanese, Korean names and sites) are drawn with a system
// fallback font when the machine has one: Droid Sans Fallback (Debian fonts-droid-fallback, which
// Ghostscript brings, itself brought by ImageMagick). Without it they print '?'.
const FALLBACK_FONTS = ['/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf', '/usr/share/fonts/truetype/droid/DroidSansFallback.ttf'];
let fallback: Promise<Uint8Array | null> | null = null;
const fallbackBytes = () =>
  (fallback ??= (async () => {
    for (const path of FALLBACK_FONTS) {
      const bytes = await readFile(path).catch(() => null);
      if (bytes) return bytes;
    }
    return null;
  })());

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const WIDTH = A4[0] - 2 * MARGIN;

const charSets = new WeakMap<PDFFont, Set<number>>();
const has = (font: PDFFont, cp: number) => {
  let set = charSets.get(font);
  if (!set) charSets.set(font, (set = new Set(font.getCharacterSet())));
  return set.has(cp);
};

/** The font that draws a character: the main one, else the fallback, else none. */
const fontFor = (font: PDFFont, fallback: PDFFont | null, ch: string) => {
  const cp = ch.codePointAt(0)!;
  return has(font, cp) ? font : fallback && has(fallback, cp) ? fallback : null;
};

/** Characters neither font has (emoji...) become '?', so the text never fails to draw. */
const drawable = (font: PDFFont, fallback: PDFFont | null, text: string) =>
  Array.from(text, (ch) => (fontFor(font, fallback, ch) ? ch : '?')).join('');

/** A drawable text as runs of one font each. */
function runs(font: PDFFont, fallback: PDFFont | null, text: string): { font: PDFFont; text: string }[] {
  const out: { font: PDFFont; text: string }[] = [];
  for (const ch of text) {
    const f = fontFor(font, fallback, ch) ?? font;
    const last = out.at(-1);
    if (last?.font === f) last.text += ch;
    else out.push({ font: f, text: ch });
  }
  return out;
}

/** Lines that `fit`: breaks at spaces, and inside words (URLs, hashes, CJK) longer than a line. */
function wrap(text: string, fits: (line: string) => boolean): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    let rest = Array.from(word); // by code point: a character outside the BMP is never cut in two
    while (!fits(rest.join(''))) {
      let n = rest.length - 1;
      while (n > 1 && !fits(rest.slice(0, n).join(''))) n--;
      lines.push(rest.slice(0, n).join(''));
      rest = rest.slice(n);
    }
    line = rest.join('');
  }
  lines.push(line);
  return lines;
}

const allText = (doc: NoticeDocument, author: string) =>
  [doc.title, doc.subtitle, author, ...doc.header.flat(), ...doc.sections.flatMap((s) => [s.heading, ...s.paragraphs.map((p) => p.text)])].join('');

/** The notice as an A4 PDF with its text selectable (checked by reading it back with pdftotext). */
export async function noticePdf(doc: NoticeDocument, meta: { author: string; created: Date }): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const [regularBytes, boldBytes] = await fontBytes();
  const regular = await pdf.embedFont(regularBytes, { subset: true });
  const bold = await pdf.embedFont(boldBytes, { subset: true });
  // The fallback is embedded only when some character needs it (a subset of what is drawn).
  const needsFallback = Array.from(allText(doc, meta.author)).some((ch) => !has(regular, ch.codePointAt(0)!));
  const extraBytes = needsFallback ? await fallbackBytes() : null;
  const extra = extraBytes ? await pdf.embedFont(extraBytes, { subset: true }) : null;
  pdf.setTitle(doc.title);
  pdf.setSubject(doc.subtitle);
  pdf.setAuthor(meta.author);
  pdf.setCreator('Filigrane');
  pdf.setProducer('Filigrane (pdf-lib)');
  pdf.setCreationDate(meta.created);
  pdf.setModificationDate(meta.created);

  let page: PDFPage = pdf.addPage(A4);
  let y = A4[1] - MARGIN;
  const line = (text: string, font: PDFFont, size: number, x = MARGIN, width = WIDTH) => {
    const measure = (l: string) => runs(font, extra, l).reduce((w, r) => w + r.font.widthOfTextAtSize(r.text, size), 0);
    for (const l of wrap(drawable(font, extra, text), (l) => measure(l) <= width)) {
      if (y - size < MARGIN) {
        page = pdf.addPage(A4);
        y = A4[1] - MARGIN;
      }
      y -= size * 1.35;
      let at = x;
      for (const r of runs(font, extra, l)) {
        page.drawText(r.text, { x: at, y, size, font: r.font, color: rgb(0, 0, 0) });
        at += r.font.widthOfTextAtSize(r.text, size);
      }
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
