/**
 * `npm run bench -- copies [--photos DIR] [--unrelated DIR,DIR] [--classes a,b] [--h0 N] [--keys N] [--floor]`
 * Copies as the modern web makes them (issue 18), measured from outside through REST on a real
 * PostgreSQL: every photo (test/bench/fetch-copies.sh: 12 photographs of 3.2-3.8 MP) is registered
 * watermarked (.lmk), each COPY_CLASSES attack is applied to each watermarked copy and searched with
 * POST /api/v4/searches/ (multipart, `near_duplicate`, the class's least `transforms`):
 * - found: the source is the first match; detected: that match is `watermarked`; false matches:
 *   any other media in the answer; p50/p95 of the whole request;
 * - unrelated photos (default .cache/photos and .cache/wallpapers, never registered), as they are
 *   and mirrored: any match is a false positive; their latency is the cost of a search that finds
 *   nothing (where the mirrored pass runs);
 * - wrong keys: the detector's key-independent features of the first `--h0` queries of each class
 *   (every hypothesis of the family evaluated) against random keys, at least 100,000 tests in all:
 *   how many fall below the 1e-6 threshold (must be 0), and the rates at 1e-2 and 1e-3 (nominal);
 * - `--floor`: the small-crop floor, by area (10% down to 1%) and by pixels (10% crops of the photo
 *   reduced to 1 MP and 0.5 MP).
 * - `--archive N`: the same account also holds N synthetic media (real rows, as the index benchmark
 *   loads them: descriptors derived from the ORB sets of half of the first unrelated folder's
 *   photos, which then leave the unrelated set), so recall and false matches are measured in an
 *   archive of that size.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { embed, encodeLmk, generateKey, type Registration } from '@filigrane/watermark';
import { analyseDetection, gaussianCarrier, log10PValue, normalisedCorrelation, type DetectionAnalysis } from '@filigrane/watermark/internal';
import { COPY_CLASSES, cropOf } from './attacks';
import { benchPostgres } from './support/postgres.js';
import { loadArchive, photoSourceSets } from './support/synthetic-archive.js';

const root = resolve(__dirname, '..', '..', '..');
const pct = (v: number[], q: number) => (v.length ? [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))]! : NaN);
const images = (dir: string) => readdirSync(dir).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort().map((f) => join(dir, f));

interface Answer {
  status: number;
  matches: { watermarked?: boolean; image?: { media_path?: string } }[];
  ms: number;
}

function multipart(file: Buffer, transforms: string[]): { body: Buffer; type: string } {
  const boundary = `----copies${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  const field = (k: string, v: string) => parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  field('mode', 'near_duplicate');
  for (const t of transforms) field('transforms', t);
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="copy"\r\nContent-Type: application/octet-stream\r\n\r\n`), file, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

async function searchRest(server: TestServer, apiKey: string, file: Buffer, transforms: string[]): Promise<Answer> {
  const form = multipart(file, transforms);
  const t0 = performance.now();
  const res = await server.call('POST', '/api/v4/searches/', { key: apiKey, body: form.body, headers: { 'content-type': form.type } });
  const ms = performance.now() - t0;
  return { status: res.status, matches: res.status === 200 ? res.json.matches : [], ms };
}

/** Wrong-key tests: per key, the family's Bonferroni-corrected log10 p of each stored analysis. */
function wrongKeys(analyses: DetectionAnalysis[], keys: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < keys; k++) {
    const key = generateKey();
    const carriers = new Map<number, Float64Array>();
    for (const a of analyses) {
      let min = 0;
      for (const f of a.features) {
        const x = f.informed;
        if (!x) continue;
        let u = carriers.get(x.length);
        if (!u) carriers.set(x.length, (u = gaussianCarrier(key, x.length)));
        min = Math.min(min, log10PValue(normalisedCorrelation(x, u), x.length));
      }
      out.push(Math.min(0, min + Math.log10(Math.max(1, a.family))));
    }
  }
  return out;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      photos: { type: 'string', default: join(root, '.cache', 'copies') },
      unrelated: { type: 'string', default: [join(root, '.cache', 'photos'), join(root, '.cache', 'wallpapers')].join(',') },
      classes: { type: 'string', default: Object.keys(COPY_CLASSES).join(',') },
      h0: { type: 'string', default: '4' },
      keys: { type: 'string', default: '0' },
      floor: { type: 'boolean', default: false },
      archive: { type: 'string', default: '0' },
    },
  });
  const files = images(values.photos);
  if (!files.length) throw new Error(`no photos in ${values.photos}: run test/bench/fetch-copies.sh`);
  const classes = values.classes.split(',').filter((c) => COPY_CLASSES[c]);
  const pg = benchPostgres();
  process.env.DATABASE_URL = pg.url;
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false, config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 } } });
  try {
    const { apiKey, id: accountId } = await server.createAccount('copies');
    const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${apiKey}` } })).arrayBuffer());
    const marked: Buffer[] = [];
    const registrations: Registration[] = [];
    const paths: string[] = [];
    for (const [i, f] of files.entries()) {
      const e = await embed(readFileSync(f), generateKey());
      marked.push(e.image);
      registrations.push(e.registration);
      paths.push(`/copies/${i}`);
      const res = await server.call('PUT', `/api/v4/media/copies/${i}`, { key: apiKey, body: encodeLmk(e.registration, der), headers: { 'content-type': 'application/lmk' } });
      if (res.status !== 201) throw new Error(`${f}: ${res.status} ${res.text}`);
    }
    console.log(`${files.length} photos registered watermarked (${values.photos}); classes: ${classes.join(', ')}`);
    const [photoDir, ...otherDirs] = values.unrelated.split(',').filter(Boolean);
    let unrelated = [photoDir, ...otherDirs].flatMap((d) => (d ? images(d) : []));
    const archive = Number(values.archive);
    if (archive > 0 && photoDir) {
      // Half of the first folder's photos become the synthetic media's sources (so they are unrelated no more).
      const photos = images(photoDir);
      const sourceFiles = photos.filter((_, i) => i % 2 === 1);
      unrelated = [...photos.filter((_, i) => i % 2 === 0), ...otherDirs.flatMap((d) => images(d))];
      const db = server.app.dataSource;
      const t0 = performance.now();
      await loadArchive(db, accountId, await photoSourceSets(sourceFiles), 1, archive, (done) => {
        if (done % 10_000 === 0) console.log(`  ${done} synthetic media written (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      });
      for (const table of ['visual_postings', 'visual_index', 'media']) await db.query(`VACUUM ANALYZE ${table}`);
      const [{ n }] = await db.query('SELECT count(*)::int AS n FROM visual_index WHERE account_id = $1', [accountId]);
      console.log(`archive: ${n.toLocaleString('en')} media indexed in the account (${archive.toLocaleString('en')} synthetic, from ${sourceFiles.length} photos' ORB sets), loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s; ${unrelated.length} unrelated photos left`);
    }

    console.log('\n| class | transforms | found | detected | false matches | p50 ms | p95 ms |');
    console.log('|---|---|---|---|---|---|---|');
    const h0: DetectionAnalysis[] = [];
    const trueLog10p: number[] = [];
    const misses: string[] = [];
    let allFound = 0, allDetected = 0, allQueries = 0, allFalse = 0;
    for (const name of classes) {
      const { attack, transforms } = COPY_CLASSES[name]!;
      let found = 0, detected = 0, falses = 0;
      const ms: number[] = [];
      for (let i = 0; i < files.length; i++) {
        const query = await attack(marked[i]!);
        const a = await searchRest(server, apiKey, query, transforms);
        ms.push(a.ms);
        const first = a.matches[0];
        if (a.status === 200 && first?.image?.media_path === paths[i]) {
          found++;
          if (first.watermarked === true) detected++;
          else misses.push(`${name}:${i}(not detected)`);
        } else misses.push(`${name}:${i}(${a.status === 200 ? 'not found' : `HTTP ${a.status}`})`);
        falses += a.matches.filter((m) => m.image?.media_path !== paths[i]).length;
        if (i < Number(values.h0)) {
          const reg = registrations[i]!;
          const analysis = await analyseDetection(query, { key: reg.key, params: reg.params, reduced: reg.reduced }, { transforms: transforms[transforms.length - 1], exhaustive: true, modes: ['informed'] }).catch(() => undefined);
          if (analysis) {
            h0.push(analysis);
            trueLog10p.push(analysis.outcomes.informed?.log10p ?? 0);
          }
        }
      }
      allFound += found; allDetected += detected; allQueries += files.length; allFalse += falses;
      console.log(`| ${name} | ${transforms.join('+')} | ${found}/${files.length} | ${detected}/${files.length} | ${falses} | ${pct(ms, 0.5).toFixed(0)} | ${pct(ms, 0.95).toFixed(0)} |`);
    }
    console.log(`| **all** | | **${allFound}/${allQueries}** | **${allDetected}/${allQueries}** | **${allFalse}** | | |`);
    if (misses.length) console.log(`misses: ${misses.join(', ')}`);

    // Unrelated photos: nothing may match, as they are or mirrored.
    let fp = 0;
    const plainMs: number[] = [];
    for (const f of unrelated) {
      const bytes = readFileSync(f);
      for (const q of [await sharp(bytes).jpeg({ quality: 85 }).toBuffer(), await sharp(bytes).flop().jpeg({ quality: 85 }).toBuffer()]) {
        const a = await searchRest(server, apiKey, q, ['scale', 'affine', 'perspective']);
        plainMs.push(a.ms);
        fp += a.matches.length;
      }
    }
    console.log(`\nunrelated photos: ${unrelated.length} x (as is, mirrored), all transforms: ${fp} false positives; search that finds nothing p50 ${pct(plainMs, 0.5).toFixed(0)} ms, p95 ${pct(plainMs, 0.95).toFixed(0)} ms`);
    const ordinary: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < files.length; i++) {
        const q = await sharp(marked[i]!).resize({ width: 1200, height: 1200, fit: 'inside' }).jpeg({ quality: 85 }).toBuffer();
        ordinary.push((await searchRest(server, apiKey, q, ['scale'])).ms);
      }
    }
    console.log(`ordinary search (the marked photo at 1200 px, JPEG 85; found and detected): p50 ${pct(ordinary, 0.5).toFixed(0)} ms, p95 ${pct(ordinary, 0.95).toFixed(0)} ms`);

    // Wrong keys over the stored features: at least 100,000 tests.
    if (h0.length) {
      const keys = Number(values.keys) || Math.ceil(100_000 / h0.length);
      const ps = wrongKeys(h0, keys);
      const below = (t: number) => ps.filter((p) => p < t).length;
      console.log(
        `\nwrong-key tests: ${h0.length} queries x ${keys} keys = ${ps.length}; below 1e-6: ${below(-6)}; ` +
          `p<1e-2: ${((100 * below(-2)) / ps.length).toFixed(3)}% (nominal 1%); p<1e-3: ${((100 * below(-3)) / ps.length).toFixed(3)}% (nominal 0.1%); smallest p 1e${Math.min(...ps).toFixed(2)}`,
      );
      console.log(`true keys on the same queries: median log10 p ${pct(trueLog10p, 0.5).toFixed(1)}, worst ${Math.max(...trueLog10p).toFixed(1)}`);
    }

    if (values.floor) await floor();
    async function floor(): Promise<void> {
      console.log('\nSmall crops (on the subject, PNG), transforms scale:');
      console.log('| source | crop area | crop pixels (median) | found | detected |');
      console.log('|---|---|---|---|---|');
      const sources: [string, (b: Buffer) => Promise<Buffer>][] = [
        ['full size', async (b) => b],
        ['reduced to 1 MP', (b) => resizedTo(b, 1e6)],
        ['reduced to 0.5 MP', (b) => resizedTo(b, 0.5e6)],
      ];
      for (const [label, source] of sources) {
        for (const area of label === 'full size' ? [0.1, 0.05, 0.03, 0.02, 0.01] : [0.1, 0.05]) {
          let found = 0, detected = 0;
          const px: number[] = [];
          for (let i = 0; i < files.length; i++) {
            const q = await cropOf(await source(marked[i]!), area);
            const m = await sharp(q).metadata();
            px.push(m.width! * m.height!);
            const a = await searchRest(server, apiKey, q, ['scale']);
            if (a.matches[0]?.image?.media_path === paths[i]) {
              found++;
              if (a.matches[0].watermarked === true) detected++;
            }
          }
          console.log(`| ${label} | ${(area * 100).toFixed(0)}% | ${pct(px, 0.5)} | ${found}/${files.length} | ${detected}/${files.length} |`);
        }
      }
    }
  } finally {
    await server.close();
    pg.stop();
  }
}

async function resizedTo(img: Buffer, pixels: number): Promise<Buffer> {
  const m = await sharp(img).metadata();
  const s = Math.sqrt(pixels / (m.width! * m.height!));
  return sharp(img).resize({ width: Math.round(m.width! * s), kernel: 'lanczos3' }).png().toBuffer();
}
