/**
 * One API process of the index benchmark (spawned by index.bench.ts, so that its memory is its own):
 * boots the app on the benchmark's database without workers and measures, on the account it is
 * given, image searches of attacked copies (recall, latency), identification of unrelated crawled
 * images (decode included) and candidate retrieval alone; or, with `memory`, the design before
 * issue 20's requirement 5: the account's rows loaded into an in-memory VisualIndex (warm-up, votes).
 * Prints one JSON line; peak RSS is the kernel's VmHWM for this process.
 */
import { readFileSync } from 'node:fs';
import { defaultPlugins } from '@filigrane/gateway';
import { bootTestServer } from '@filigrane/server';
import { IdentificationService, VisualIndexService } from '@filigrane/plugin-search';
import { prepareQuery, queryFingerprint, VisualIndex, type GeometricModel } from '@filigrane/vision';

interface ProbeInput {
  mode: 'shared' | 'memory';
  databaseUrl: string;
  masterKey: string;
  accountId: number;
  /** Attacked copies and the path of the media each must find first. */
  copies: { file: string; expect: string }[];
  /** Images registered nowhere: crawled images that identify nothing. */
  unrelated: string[];
  /** The same images at 1,200 px on the longest side (JPEG q85), the usual size of a crawled web image. */
  unrelatedWeb: string[];
  rounds: number;
}

/** Peaks of V8's heap and of memory outside it, sampled: what the kernel's RSS peak is made of. */
const heapPeaks = { heapUsedPeak: 0, heapTotalPeak: 0, externalPeak: 0 };
setInterval(() => {
  const m = process.memoryUsage();
  heapPeaks.heapUsedPeak = Math.max(heapPeaks.heapUsedPeak, m.heapUsed);
  heapPeaks.heapTotalPeak = Math.max(heapPeaks.heapTotalPeak, m.heapTotal);
  heapPeaks.externalPeak = Math.max(heapPeaks.externalPeak, m.external);
}, 20).unref();
const peakRss = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const SEARCH: { mode: 'near_duplicate'; transforms: GeometricModel[]; detect: boolean } = { mode: 'near_duplicate', transforms: ['scale'], detect: false };

async function main(): Promise<void> {
  const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ProbeInput;
  const server = await bootTestServer({
    plugins: defaultPlugins(),
    env: process.env,
    workers: false,
    databaseUrl: input.databaseUrl,
    masterKey: Buffer.from(input.masterKey, 'base64'),
  });
  const bootRss = process.memoryUsage().rss;
  const copies = input.copies.map((c) => ({ bytes: readFileSync(c.file), expect: c.expect }));
  const unrelated = input.unrelated.map((f) => readFileSync(f));
  const unrelatedWeb = input.unrelatedWeb.map((f) => readFileSync(f));
  try {
    if (input.mode === 'memory') {
      // The design before: every process loads the account's rows into its own VisualIndex.
      const t0 = performance.now();
      const db = server.app.dataSource;
      const n: { n: number }[] = await db.query('SELECT count(*)::int AS n FROM visual_index WHERE account_id = $1', [input.accountId]);
      const index = new VisualIndex({ bits: VisualIndex.bitsFor(n[0]!.n) });
      for (let after = 0; ; ) {
        const page: { media_id: string; count: number; points: Buffer; descriptors: Buffer; dhash: Buffer; thumb: Buffer; width: number; height: number }[] = await db.query(
          'SELECT media_id, count, points, descriptors, dhash, thumb, width, height FROM visual_index WHERE account_id = $1 AND media_id > $2 ORDER BY media_id LIMIT 2000',
          [input.accountId, after],
        );
        for (const r of page) {
          const points = new Float32Array(r.points.buffer.slice(r.points.byteOffset, r.points.byteOffset + r.points.byteLength));
          index.add(Number(r.media_id), { count: r.count, descriptors: new Uint8Array(r.descriptors), points, dhash: new Uint8Array(r.dhash), thumb: new Uint8Array(r.thumb), aspect: r.width / r.height });
        }
        if (page.length < 2000) break;
        after = Number(page[page.length - 1]!.media_id);
      }
      const warmUpMs = performance.now() - t0;
      const retrieval: number[] = [];
      for (let round = 0; round < input.rounds; round++) {
        for (const c of copies) {
          const fp = await queryFingerprint(await prepareQuery(c.bytes));
          const t1 = performance.now();
          index.exact(fp);
          index.vote(fp.features.descriptors, fp.features.count, { max: 10 });
          retrieval.push(performance.now() - t1);
        }
      }
      console.log(JSON.stringify({ mode: 'memory', entries: index.size, indexBytes: index.memoryBytes(), warmUpMs, retrieval, bootRss, peakRss: peakRss() }));
      return;
    }
    const identification = server.app.container.get(IdentificationService);
    const visual = server.app.container.get(VisualIndexService);
    const accountId = input.accountId;
    // First query of the process: counts the account (the key length), nothing else to warm up.
    const t0 = performance.now();
    await identification.identify(accountId, copies[0]!.bytes, SEARCH);
    const firstMs = performance.now() - t0;
    const search: number[] = [];
    const retrieval: number[] = [];
    let found = 0;
    for (let round = 0; round < input.rounds; round++) {
      for (const c of copies) {
        const t1 = performance.now();
        const result = await identification.identify(accountId, c.bytes, SEARCH);
        search.push(performance.now() - t1);
        if (round === 0 && result[0]?.media.path === c.expect) found++;
        const fp = await queryFingerprint(await prepareQuery(c.bytes));
        const t2 = performance.now();
        await visual.candidates(accountId, fp, 10);
        retrieval.push(performance.now() - t2);
      }
    }
    // A crawled image that identifies nothing (most of a crawl), decode included, as the match
    // pipeline runs it (fallbacks included, their reads speculated; SPECULATE=0 for the sequential
    // order); then the same images at the size of a web image.
    const crawled = async (images: Buffer[]) => {
      const ms: number[] = [];
      let matches = 0;
      for (let round = 0; round < input.rounds; round++) {
        for (const bytes of images) {
          const t1 = performance.now();
          const result = await identification.identify(accountId, bytes, { mode: 'near_duplicate', transforms: ['scale', 'perspective'], detect: true, limit: 5, speculate: process.env.SPECULATE !== '0' });
          ms.push(performance.now() - t1);
          matches += result.length;
        }
      }
      return { ms, matches };
    };
    const asIs = await crawled(unrelated);
    const web = await crawled(unrelatedWeb);
    const stats = await visual.stats(accountId);
    console.log(JSON.stringify({ mode: 'shared', ...stats, firstMs, search, retrieval, found, queries: copies.length, identify: asIs.ms, falseMatches: asIs.matches, identifyWeb: web.ms, falseMatchesWeb: web.matches, bootRss, peakRss: peakRss(), ...heapPeaks }));
  } finally {
    await server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
