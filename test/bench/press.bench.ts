/**
 * `npm run bench -- press [--photos DIR] [--pdfs DIR] [--planted N] [--media N]`
 * Press analysis on real PDFs, on a real PostgreSQL, against an account of 1,000 registered media:
 * - documents: ghostscript-doc's GS9_Color_Management.pdf, texlive-latex-recommended-doc's beamer
 *   examples and the pdf-parse npm package's test PDFs (test/bench/fetch-press.sh, into .cache/press),
 *   plus an issue composed here from watermarked benchmark photos with printed credit lines and
 *   one scanned page;
 * - pages/s of the whole analysis (extraction, credit lines, OCR of scans, identification,
 *   detection, recording) and of extraction alone;
 * - images found against `pdfimages -list` (poppler-utils) on the same files, and the time
 *   `pdfimages -all` takes to extract them, as a ratio;
 * - recall of the planted photos (found, and watermarked) and of their credit lines; peak RSS;
 * - OCR credit-line recall on rendered scans, before and after (ocr-credits.ts; `--ocr-only` for it alone).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { startTestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { extractPdf, PressAnalysisService, PressIssueService, scannedPage } from '@filigrane/plugin-press';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { benchPostgres } from './support/postgres.js';
import { filler, insertSyntheticMedia } from './support/synthetic-media.js';
import { ocrCreditRecall } from './ocr-credits.js';

const root = resolve(__dirname, '..', '..', '..');
const mib = (kb: number) => (kb / 1024).toFixed(0);

/** The composed issue: one page per planted photo (JPEG, credit printed below), then one scan. */
async function composeBenchIssue(photos: Buffer[], credits: string[]): Promise<{ pdf: Buffer; scanIndex: number }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const body = await doc.embedFont(StandardFonts.TimesRoman);
  for (const [i, photo] of photos.entries()) {
    const page = doc.addPage([595, 842]);
    page.drawText(`LA GAZETTE DU BANC D'ESSAI - page ${i + 1}`, { x: 40, y: 800, size: 16, font });
    const jpeg = await doc.embedJpg(await sharp(photo).jpeg({ quality: 88 }).toBuffer());
    const w = 480;
    const h = Math.round((w * jpeg.height) / jpeg.width);
    page.drawImage(jpeg, { x: 57, y: 760 - h, width: w, height: h });
    page.drawText(credits[i]!, { x: 57, y: 748 - h, size: 7, font });
    for (let l = 0; l < 12 && 700 - h - l * 14 > 40; l++) page.drawText('Le texte de l\'article continue ici, sans rapport avec la photographie publiee.', { x: 57, y: 720 - h - l * 14, size: 10, font: body });
  }
  // The scanned page: the last planted photo printed again, as a scan without text layer.
  const scanIndex = photos.length - 1;
  const scan = await scannedPage(photos[scanIndex]!, credits[scanIndex]!);
  const page = doc.addPage([595, 842]);
  page.drawImage(await doc.embedJpg(scan), { x: 0, y: 0, width: 595, height: 842 });
  return { pdf: Buffer.from(await doc.save()), scanIndex };
}

/** Rows of `pdfimages -list` that are images (not stencil masks nor soft masks), and its extraction time. */
function popplerImages(file: string): { images: number; pages: number; ms: number } | null {
  const list = spawnSync('pdfimages', ['-list', file], { encoding: 'utf8' });
  if (list.status !== 0 && !list.stdout) return null;
  const rows = list.stdout.split('\n').slice(2).filter((l) => l.trim()).map((l) => l.trim().split(/\s+/));
  const images = rows.filter((r) => r[2] === 'image').length;
  const pages = Number(spawnSync('pdfinfo', [file], { encoding: 'utf8' }).stdout.match(/Pages:\s+(\d+)/)?.[1] ?? 0);
  const out = mkdtempSync(join(tmpdir(), 'pdfimages-'));
  const t0 = performance.now();
  spawnSync('pdfimages', ['-all', file, join(out, 'img')]);
  const ms = performance.now() - t0;
  rmSync(out, { recursive: true, force: true });
  return { images, pages, ms };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      photos: { type: 'string', default: join(root, '.cache', 'photos') },
      pdfs: { type: 'string', default: join(root, '.cache', 'press') },
      planted: { type: 'string', default: '10' },
      media: { type: 'string', default: '1000' },
      'ocr-only': { type: 'boolean', default: false },
    },
  });
  // OCR credit-line recall on scans rendered here, before and after (no server, no downloads).
  await ocrCreditRecall();
  if (values['ocr-only']) return;
  if (readdirSync(values.photos, { withFileTypes: true }).length < 10) execFileSync('bash', [join(root, 'test/bench/fetch-photos.sh'), values.photos], { stdio: 'inherit' });
  if (!existsSync(join(values.pdfs, 'GS9_Color_Management.pdf'))) execFileSync('bash', [join(root, 'test/bench/fetch-press.sh'), values.pdfs], { stdio: 'inherit' });
  const hasPoppler = spawnSync('pdfimages', ['-v']).status === 0;

  const pg = benchPostgres();
  process.env.DATABASE_URL = pg.url;
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false, config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 } } });
  try {
    const { apiKey, id: accountId } = await server.createAccount('bench');
    await server.call('POST', '/api/v4/account/settings/', { key: apiKey, json: { notifications: { notify_pdf: true } } });
    const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${apiKey}` } })).arrayBuffer());

    // 1. The account: planted photos registered watermarked (with their credit), other photos plain, synthetic distractors up to --media.
    const files = readdirSync(values.photos).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
    const planted = files.slice(0, Number(values.planted));
    const marked: Buffer[] = [];
    const credits: string[] = [];
    for (const [i, f] of planted.entries()) {
      const e = await embed(readFileSync(join(values.photos, f)), generateKey());
      marked.push(e.image);
      const credit = `Studio Essai ${String.fromCharCode(65 + i)}${i}`;
      credits.push(`© ${credit} / Agence Filigrane`);
      const res = await server.call('PUT', `/api/v4/media/bench/planted/${f}`, {
        key: apiKey,
        json: { url: `data:application/lmk;base64,${encodeLmk(e.registration, der).toString('base64')}`, metadata: { 'user.credit': credit } },
      });
      if (res.status !== 201) throw new Error(`${f}: ${res.status} ${res.text}`);
    }
    for (const f of files.slice(planted.length)) {
      const bytes = readFileSync(join(values.photos, f));
      const type = f.endsWith('.png') ? 'image/png' : 'image/jpeg';
      await server.call('PUT', `/api/v4/media/bench/plain/${f}`, { key: apiKey, body: bytes, headers: { 'content-type': type } });
    }
    const synthetic = Math.max(0, Number(values.media) - files.length);
    const fill = filler(4242);
    for (let done = 0; done < synthetic; done += 1000) await insertSyntheticMedia(server.app.dataSource, accountId, fill, done + 1, Math.min(1000, synthetic - done));
    console.log(`account: ${planted.length} planted photos (watermarked, with credits), ${files.length - planted.length} plain photos, ${synthetic} synthetic media: ${files.length + synthetic} registered`);

    const { pdf: composed, scanIndex } = await composeBenchIssue(marked, credits);
    const composedPath = join(mkdtempSync(join(tmpdir(), 'press-bench-')), 'composed-issue.pdf');
    writeFileSync(composedPath, composed);
    const docs = [...readdirSync(values.pdfs).filter((f) => f.endsWith('.pdf')).sort().map((f) => join(values.pdfs, f)), composedPath];

    // 2. Each document: extraction alone (all image sizes, to compare with pdfimages), then the full analysis.
    const issues = server.app.container.get(PressIssueService);
    const analysis = server.app.container.get(PressAnalysisService);
    console.log('\n| document | pages | images (ours) | pdfimages | rendered tile regions | extraction ms | analysis ms | pages/s (analysis) | pdfimages -all ms | status |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    let totalPages = 0, totalAnalysisMs = 0, totalExtractMs = 0, totalPopplerMs = 0, ours = 0, theirs = 0;
    let composedId = 0;
    for (const file of docs) {
      const data = readFileSync(file);
      const name = file.split('/').pop()!;
      let count = 0, rendered = 0, pages = 0, failure = '';
      const t0 = performance.now();
      try {
        for await (const p of extractPdf(data, { limits: { minImageSide: 1 } })) {
          pages++;
          // Embedded images only (each placement, as pdfimages lists them); rendered tile regions apart.
          count += p.images.filter((im) => !im.rendered).reduce((n, im) => n + im.boxes.length, 0);
          rendered += p.images.filter((im) => im.rendered).length;
        }
      } catch (err) {
        failure = (err as { code?: string }).code ?? (err as Error).message;
      }
      const extractMs = performance.now() - t0;
      const issue = await issues.ingest({ data, name: 'Banc d\'essai', date: '2026-11-22', origin: 'cli', ingestedBy: null, filename: name, sourceUrl: null, baseUrl: server.url });
      const t1 = performance.now();
      await analysis.process(issue.id);
      const analysisMs = performance.now() - t1;
      const done = await server.app.dataSource.manager.findOneByOrFail<{ id: number; status: string; pagesDone: number; pagesTotal: number | null; error: { code: string; details?: string } | null }>('PressIssue', { id: issue.id });
      if (file === composedPath) composedId = issue.id;
      const poppler = hasPoppler ? popplerImages(file) : null;
      if (done.status === 'complete') {
        totalPages += done.pagesDone; totalAnalysisMs += analysisMs; totalExtractMs += extractMs; ours += count;
        if (poppler) { theirs += poppler.images; totalPopplerMs += poppler.ms; }
      }
      console.log(`| ${name} | ${done.pagesTotal ?? pages} | ${failure ? '-' : count} | ${poppler?.images ?? 'n/a'} | ${rendered} | ${extractMs.toFixed(0)} | ${analysisMs.toFixed(0)} | ${((done.pagesDone / analysisMs) * 1000).toFixed(1)} | ${poppler?.ms.toFixed(0) ?? 'n/a'} | ${done.status}${done.error ? ` (${done.error.code})` : ''} |`);
    }
    console.log(`| **all readable** | **${totalPages}** | **${ours}** | **${hasPoppler ? theirs : 'n/a'}** | | ${totalExtractMs.toFixed(0)} | ${totalAnalysisMs.toFixed(0)} | **${((totalPages / totalAnalysisMs) * 1000).toFixed(1)}** | ${hasPoppler ? totalPopplerMs.toFixed(0) : 'n/a'} | |`);

    // 3. Recall on the composed issue.
    const rows: { path: string; watermarked: boolean; page: number; credit: string | null }[] = await server.app.dataSource.query(
      `SELECT md.path, m.watermarked, (m.press->>'pageNumber')::int AS page, m.image->>'credit' AS credit
       FROM matches m JOIN media md ON md.id = m.media_id WHERE m.account_id = $1 AND m.kind = 'press' AND m.query_url LIKE $2`,
      [accountId, `%/press/issues/${composedId}/%`],
    );
    // Page p shows planted photo p-1; the last page is the scan of the photo at scanIndex.
    const plantedOn = (page: number) => (page - 1 < planted.length ? page - 1 : scanIndex);
    const own = rows.filter((r) => r.path === `/bench/planted/${planted[plantedOn(r.page)]}`);
    const foundPages = new Set(own.map((r) => r.page));
    const expected = planted.length + 1;
    const markedPages = new Set(own.filter((r) => r.watermarked).map((r) => r.page));
    const creditOk = new Set(own.filter((r) => (r.credit ?? '').includes(credits[plantedOn(r.page)]!.split(' / ')[0]!.slice(2))).map((r) => r.page));
    const creditMatches: { n: string }[] = await server.app.dataSource.query(`SELECT count(*) AS n FROM matches WHERE account_id = $1 AND kind = 'credit' AND query_url LIKE $2`, [accountId, `%/press/issues/${composedId}/%`]);
    const falseRows = rows.filter((r) => !r.path.startsWith('/bench/planted/'));
    console.log(`\nplanted photos found: ${foundPages.size}/${expected} pages (incl. the scan), watermarked: ${markedPages.size}/${expected}, credit lines read: ${creditOk.size}/${expected}, credit matches: ${creditMatches[0]!.n}, matches on other media: ${falseRows.length}`);
    const rss = process.resourceUsage().maxRSS;
    console.log(`peak RSS of the process (server, PostgreSQL client, analysis): ${mib(rss)} MiB`);
    console.log(`images found: ${ours} vs pdfimages ${hasPoppler ? theirs : 'n/a'}; pages/s with matching against ${files.length + synthetic} media: ${((totalPages / totalAnalysisMs) * 1000).toFixed(1)} (target >= 5)`);
    if (hasPoppler) console.log(`time ratio: our extraction / pdfimages -all = ${(totalExtractMs / totalPopplerMs).toFixed(2)}; full analysis / pdfimages -all = ${(totalAnalysisMs / totalPopplerMs).toFixed(2)}`);
  } finally {
    await server.close();
    pg.stop();
  }
}
