import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noticePdf } from '../src/notice-pdf.js';

// Names a notice carries from its users (holder, site, page titles) in scripts DejaVu lacks: drawn
// with the system's fallback font, read back by pdftotext (a tool we did not write).
const tmp = mkdtempSync(join(tmpdir(), 'notice-pdf-'));
test.after.always(() => rmSync(tmp, { recursive: true, force: true }));

const text = async (holder: string, paragraph: string) => {
  const pdf = await noticePdf(
    { title: 'DMCA takedown notice', subtitle: holder, header: [['From', holder]], sections: [{ heading: 'Copies', paragraphs: [{ text: paragraph }] }] },
    { author: holder, created: new Date('2026-11-26T10:00:00Z') },
  );
  const file = join(tmp, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  return { pdf, text: execFileSync('pdftotext', ['-enc', 'UTF-8', '-raw', file, '-'], { encoding: 'utf8' }) };
};

test('CJK names are drawn (not ?) beside Latin text; a long CJK run wraps inside the page; emoji still print ?', async (t) => {
  const long = '東京都千代田区丸の内一丁目の写真家協会が撮影した報道写真の無断転載について'.repeat(4);
  const { text: out } = await text('株式会社フィリグラン 写真部 (Łódź office)', `Page ${long} 📷 end`);
  t.true(out.includes('From: 株式会社フィリグラン 写真部 (Łódź office)'), out);
  t.true(out.replace(/\s+/g, '').includes(long), out);
  t.true(out.includes('? end'), out);
  // Wrapped: no drawn line is longer than the page allows (~40 CJK characters at 10 pt on A4).
  for (const line of out.split('\n')) t.true(Array.from(line).length < 80, line);
});

test('Latin-only notices embed no fallback font', async (t) => {
  const { pdf, text: out } = await text('Agence Lumière SARL', 'Élodie Łukasiewicz');
  t.true(out.includes('Élodie Łukasiewicz'));
  t.false(pdf.toString('latin1').includes('DroidSans'), 'the fallback is embedded only when needed');
});
