/**
 * Credit-line recall of OCR on scanned pages (a section of `npm run bench -- press`, alone with
 * `npm run bench -- press --ocr-only`): newspaper pages rendered here (plugins/press testing.ts,
 * `scannedCreditPdf`) as a scanner gives them, 150 to 300 dpi, skewed, noisy, JPEG, wrapped in
 * PDFs without text layer, each with a photo and its credit line (5.5 to 7 pt, under the photo or
 * up its edge). Each PDF goes through the extraction with OCR, read by the service's settings and
 * by the previous ones (pages reduced to 2,400 px, never enlarged, upright only) in the same run.
 * A credit counts as read when every word of the printed line is in the credit found (case and
 * accents folded).
 */
import { extractPdf, scannedCreditPdf, TesseractOcr, type OcrOptions } from '@filigrane/plugin-press';
import { syntheticPhoto } from '@filigrane/vision';

const CREDITS = [
  'Photo: Studio Kerbrat / Anne Guivarch',
  '© Jean-Pierre Lefèvre / AFP',
  'Crédit : Maïwenn Le Goff',
  'Photo Yann Morvan / Ouest Images',
  '© Hélène Durand',
  'Photo : François Kermarrec / Reuters',
  '© Claire Martin / Hans Lucas',
  'Photo: Gwenaël Le Bihan',
];

/** The scans: resolution, credit placement and size, skew, noise, one per credit. */
const CASES = [
  { dpi: 150, placement: 'below', size: 6, angle: 1.2, noise: 14 },
  { dpi: 150, placement: 'vertical', size: 6.5, angle: 0.8, noise: 12 },
  { dpi: 200, placement: 'below', size: 5.5, angle: -1.0, noise: 16 },
  { dpi: 300, placement: 'vertical', size: 6, angle: 1.5, noise: 18 },
  { dpi: 150, placement: 'below', size: 5.5, angle: 0.5, noise: 20 },
  { dpi: 200, placement: 'vertical', size: 7, angle: -0.6, noise: 10 },
  { dpi: 300, placement: 'below', size: 6, angle: -1.4, noise: 12 },
  { dpi: 150, placement: 'below', size: 7, angle: 0.3, noise: 8 },
] as const;

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
const read = (expected: string, found: string | null) => {
  const got = ` ${fold(found ?? '')} `;
  return fold(expected).split(' ').every((w) => got.includes(` ${w} `));
};

export async function ocrCreditRecall(which: 'both' | 'before' | 'after' = 'both'): Promise<void> {
  const scans = [];
  for (const [i, c] of CASES.entries()) {
    const credit = CREDITS[i % CREDITS.length]!;
    scans.push({ ...c, credit, pdf: (await scannedCreditPdf({ ...c, credit, seed: i + 1, photo: await syntheticPhoto(70 + i) })).pdf });
  }
  const all: [string, OcrOptions][] = [
    ['before (2,400 px, upright only)', { targetSide: 2400, maxEnlargement: 1, turnedPass: false }],
    ['after (3,000 px, up to 2x, turned pass)', {}],
  ];
  const engines = all.filter(([n]) => which === 'both' || n.startsWith(which));
  console.log('\n### OCR credit lines on scanned pages\n');
  console.log('| scan | credit printed | ' + engines.map(([n]) => `${n}: credit found | ms`).join(' | ') + ' |');
  console.log('|---|---|' + engines.map(() => '---|---').join('|') + '|');
  const totals = engines.map(() => ({ read: 0, ms: 0 }));
  const rows: string[][] = scans.map((s) => [`${s.dpi} dpi, ${s.placement}, ${s.size} pt, ${s.angle}°, noise ${s.noise}`, s.credit]);
  for (const [e, [, options]] of engines.entries()) {
    const ocr = new TesseractOcr(options);
    try {
      for (const [i, s] of scans.entries()) {
        const t0 = performance.now();
        let found: string | null = null;
        for await (const page of extractPdf(s.pdf, { ocr })) found ??= page.images.map((im) => im.credit).find(Boolean) ?? null;
        const ms = performance.now() - t0;
        const ok = read(s.credit, found);
        totals[e]!.read += ok ? 1 : 0;
        totals[e]!.ms += ms;
        rows[i]!.push(`${ok ? 'yes' : 'no'}: ${JSON.stringify(found)}`, ms.toFixed(0));
        console.log(`  ${engines[e]![0]}, scan ${i + 1}/${scans.length}: ${ok ? 'read' : 'not read'} in ${(ms / 1000).toFixed(1)} s`);
      }
    } finally {
      await ocr.close();
    }
  }
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(`\ncredit-line recall on ${scans.length} scans: ` + engines.map(([n], e) => `${n} ${totals[e]!.read}/${scans.length} (${(totals[e]!.ms / scans.length / 1000).toFixed(1)} s a page)`).join('; '));
}
