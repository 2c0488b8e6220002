/**
 * `npm run bench -- index [--sizes 10000,100000,1000000] [--peer 10000,100000] [--rounds 2] [--keep]`
 * The visual index at archive scale (issue 20, requirement 5), on a real PostgreSQL:
 * 1. half of .cache/photos registered through REST (the production path: fingerprint, row,
 *    postings); two attacked copies of each (resize50+jpeg70, crop50) are the search queries;
 * 2. the account grows to each size with synthetic media (support/synthetic-archive.ts: real rows,
 *    descriptors derived from the ORB sets of the other half of the photos, at 4 scales x 4
 *    rotations); after each, a fresh API process (support/index-probe.ts) measures image search
 *    (p50/p99, recall), candidate retrieval alone, identification of unrelated crawled images
 *    (.cache/wallpapers and .cache/copies, 3-6 MP, decode included; and the same images at 1,200 px
 *    on the longest side, JPEG q85, the usual size of a crawled web image) and its own peak RSS;
 * 3. at each `--peer` size, a fresh process runs the design before (each process loads the account into
 *    an in-memory VisualIndex): warm-up, peak RSS, retrieval; the ratio is printed.
 * `--keep` (with DATABASE_URL): leaves the database and each size's probe input in place, so that a
 * later build's probe can be rerun on the same rows (`node test/dist/bench/support/index-probe.js FILE`).
 * Run under `flock /tmp/filigrane-bench.lock`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import sharp from 'sharp';
import { startTestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { ATTACKS } from './attacks';
import { benchPostgres } from './support/postgres.js';
import { loadArchive, photoSourceSets } from './support/synthetic-archive.js';

const root = resolve(__dirname, '..', '..', '..');
/** What support/synthetic-archive.ts spills to files per media while it loads (1,024 postings of 4 + 6 bytes). */
const SPILL_BYTES_PER_MEDIA = 12_000;
const pct = (v: number[], q: number) => (v.length ? [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))]! : NaN);
const mib = (b: number) => (b / 2 ** 20).toFixed(0);
const jpegs = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort().map((f) => join(dir, f)) : []);

async function probe(input: object, keepAs?: string): Promise<Record<string, any>> {
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-probe-'));
  const file = join(dir, 'input.json');
  writeFileSync(file, JSON.stringify(input));
  if (keepAs) writeFileSync(keepAs, JSON.stringify(input));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(__dirname, 'support', 'index-probe.js'), file], { maxBuffer: 64 << 20, env: { ...process.env } });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      sizes: { type: 'string', default: '10000,100000,1000000' },
      peer: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '2' },
      keep: { type: 'boolean', default: false },
    },
  });
  const sizes = values.sizes.split(',').map(Number).filter((n) => n > 0).sort((a, b) => a - b);
  const peers = new Set(values.peer.split(',').map(Number));
  const photos = jpegs(join(root, '.cache', 'photos'));
  if (photos.length < 4) throw new Error('no photos: run test/bench/fetch-photos.sh');
  const registered = photos.filter((_, i) => i % 2 === 0);
  const sourceFiles = photos.filter((_, i) => i % 2 === 1);
  const unrelated = [...jpegs(join(root, '.cache', 'wallpapers')), ...jpegs(join(root, '.cache', 'copies'))];

  if (values.keep && !process.env.DATABASE_URL) throw new Error('--keep needs DATABASE_URL (a database that outlives the benchmark)');
  if (values.keep) process.env.KEEP_TEST_DATABASE = '1';
  const pg = benchPostgres();
  process.env.DATABASE_URL = pg.url;
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false, config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 } } });
  const work = mkdtempSync(join(tmpdir(), 'filigrane-index-bench-'));
  try {
    const db = server.app.dataSource;
    await db.query('ALTER SYSTEM SET synchronous_commit = off');
    await db.query('SELECT pg_reload_conf()');
    const { apiKey, id: accountId } = await server.createAccount('archive');
    const copies: { file: string; expect: string }[] = [];
    for (const f of registered) {
      const path = `/archive/photos/${f.split('/').pop()}`;
      const bytes = readFileSync(f);
      const res = await server.call('PUT', `/api/v4/media${path}`, { key: apiKey, body: bytes, headers: { 'content-type': 'image/jpeg' } });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
      for (const attack of ['resize50+jpeg70', 'crop50']) {
        const file = join(work, `${copies.length}.jpg`);
        writeFileSync(file, await ATTACKS[attack]!(bytes));
        copies.push({ file, expect: path });
      }
    }
    // The same unrelated images the size crawled web images usually are (1,200 px on the longest
    // side, JPEG q85): identification is timed on both, decode included.
    const unrelatedWeb: string[] = [];
    for (const [i, f] of unrelated.entries()) {
      const file = join(work, `web-${i}.jpg`);
      writeFileSync(file, await sharp(f).rotate().resize(1200, 1200, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer());
      unrelatedWeb.push(file);
    }
    const sources = await photoSourceSets(sourceFiles);
    console.log(`${registered.length} photos registered (${copies.length} attacked copies as queries), ${unrelated.length} unrelated crawled images (as is, and at 1,200 px), synthetic media from ${sources.length} real ORB sets (${sourceFiles.length} photos x 4 scales x 4 rotations)`);
    console.log(`PostgreSQL ${(await db.query('SHOW server_version'))[0].server_version}, ${values.rounds} rounds per measure\n`);

    const rows: string[] = [];
    const peerLines: string[] = [];
    let synthetic = 0;
    const base = { databaseUrl: server.databaseUrl, masterKey: server.masterKey.toString('base64'), accountId, copies, unrelated, unrelatedWeb, rounds: Number(values.rounds) };
    // Bytes per media on disk (database, plus the loader's spill files), measured at each size: a size
    // the disk cannot hold is reported as not run instead of failing hours in (1,000,000 media need
    // ~85-95 GB of database alone).
    let bytesPerMedia = 110_000;
    for (const size of sizes) {
      const target = size - registered.length;
      const t0 = performance.now();
      const free = (() => {
        const f = statfsSync(tmpdir());
        return f.bavail * f.bsize;
      })();
      const needed = Math.max(0, target - synthetic) * (bytesPerMedia + SPILL_BYTES_PER_MEDIA) * 1.1;
      if (needed > free) {
        const line = `| ${size.toLocaleString('en')} | not run: needs ~${(needed / 1e9).toFixed(0)} GB of disk at ${(bytesPerMedia / 1000).toFixed(0)} KB/media (database) + ${SPILL_BYTES_PER_MEDIA / 1000} KB/media (loader), ${(free / 1e9).toFixed(0)} GB free under ${tmpdir()} |`;
        console.log(line);
        rows.push(line);
        break;
      }
      if (target > synthetic) {
        await loadArchive(db, accountId, sources, synthetic + 1, target - synthetic, (done) => {
          if (done % 10_000 === 0) console.log(`  ${synthetic + done} synthetic media written (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
        });
        synthetic = target;
        console.log(`  ${synthetic} synthetic media and their postings written (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      }
      await db.query('VACUUM ANALYZE visual_postings');
      await db.query('VACUUM ANALYZE visual_index');
      await db.query('VACUUM ANALYZE media');
      const loadS = (performance.now() - t0) / 1000;
      const sizeRows: { index: string; postings: string; database: string }[] = await db.query(
        `SELECT pg_total_relation_size('visual_index') AS index, pg_total_relation_size('visual_postings') AS postings, pg_database_size(current_database()) AS database`,
      );
      const [indexBytes, postingsBytes, databaseBytes] = [sizeRows[0]!.index, sizeRows[0]!.postings, sizeRows[0]!.database].map(Number) as [number, number, number];
      bytesPerMedia = databaseBytes / Math.max(1, size);
      const keepAs = values.keep ? join(work, `probe-${size}.json`) : undefined;
      const s = await probe({ ...base, mode: 'shared' }, keepAs);
      if (keepAs) console.log(`  probe input kept: ${keepAs}`);
      console.log(`  API heap: used peak ${mib(s.heapUsedPeak)} MiB, total peak ${mib(s.heapTotalPeak)} MiB, external peak ${mib(s.externalPeak)} MiB (sampled every 20 ms)`);
      rows.push(
        `| ${s.entries.toLocaleString('en')} | ${loadS.toFixed(0)} | ${(indexBytes / 2 ** 30).toFixed(1)} + ${(postingsBytes / 2 ** 30).toFixed(1)} (${((indexBytes + postingsBytes) / s.entries / 1000).toFixed(1)} KB/media) | ${(databaseBytes / 2 ** 30).toFixed(1)} | ${pct(s.search, 0.5).toFixed(0)} | ${pct(s.search, 0.99).toFixed(0)} | ${pct(s.retrieval, 0.5).toFixed(0)} | ${pct(s.identify, 0.5).toFixed(0)} / ${pct(s.identify, 0.99).toFixed(0)} | ${pct(s.identifyWeb, 0.5).toFixed(0)} / ${pct(s.identifyWeb, 0.99).toFixed(0)} | ${s.found}/${s.queries} | ${s.falseMatches} / ${s.falseMatchesWeb} | ${mib(s.bootRss)} / ${mib(s.peakRss)} |`,
      );
      console.log(rows[rows.length - 1]);
      if (peers.has(size)) {
        const m = await probe({ ...base, mode: 'memory' });
        const peerLine =
          `In-memory design (before), same rows, fresh process at ${m.entries.toLocaleString('en')} media: warm-up ${(m.warmUpMs / 1000).toFixed(1)} s, index ${mib(m.indexBytes)} MiB (${(m.indexBytes / m.entries).toFixed(0)} B/media), ` +
          `peak RSS ${mib(m.peakRss)} MiB, retrieval p50 ${pct(m.retrieval, 0.5).toFixed(1)} ms.\n` +
          `Shared (after), same size: no warm-up (first query ${s.firstMs.toFixed(0)} ms), peak RSS ${mib(s.peakRss)} MiB, retrieval p50 ${pct(s.retrieval, 0.5).toFixed(1)} ms.\n` +
          `Ratio after/before: peak RSS ${(s.peakRss / m.peakRss).toFixed(2)}, index memory per process 0 / ${mib(m.indexBytes)} MiB, retrieval p50 ${(pct(s.retrieval, 0.5) / pct(m.retrieval, 0.5)).toFixed(1)}x, search p50 ${pct(s.search, 0.5).toFixed(0)} ms.`;
        console.log(peerLine);
        peerLines.push(peerLine);
      }
    }
    console.log('\n| media | load s | visual_index + postings GiB (per media) | database GiB | search p50 ms | search p99 ms | retrieval p50 ms | identify unrelated p50 / p99 ms | same at 1,200 px p50 / p99 ms | copies found first | false matches (as is / 1,200 px) | API RSS boot / peak MiB |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    for (const l of peerLines) console.log(`\n${l}`);
  } finally {
    if (!values.keep) rmSync(work, { recursive: true, force: true });
    await server.close();
    pg.stop();
  }
}
