/**
 * `npm run bench -- search [--photos DIR] [--limit N] [--detect N] [--scale 1000,10000,100000]`
 * Identification quality and speed on a real PostgreSQL:
 * 1. every photo is registered watermarked (.lmk over HTTP); each of the watermark benchmark's
 *    attacks is applied to each watermarked copy and identified with all the other photos as
 *    distractors: recall@1, false matches (any result that is not the source), and the detection
 *    rate on the first `--detect` photos (detection costs ~1 s per query);
 * 2. leak tracing (`--leaks N`, default 10; `--copies C`, default 5): N photos each registered
 *    normally and as C transactional copies (own keys, same pixels); each attack is applied to one
 *    copy per photo: is that copy first, is any other copy flagged watermarked, latency per query
 *    with detection;
 * 3. latency of a search (decode, ORB, voting, existence check, RANSAC; no detection) with 1,000,
 *    10,000 and 100,000 indexed media: synthetic media are real rows (media, visual_index and
 *    their postings, descriptors derived from real ORB sets; support/synthetic-archive.ts).
 * Photos: test/bench/fetch-photos.sh (default folder .cache/photos).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { IdentificationService, VisualIndexService } from '@filigrane/plugin-search';
import { prepareQuery, type GeometricModel } from '@filigrane/vision';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { ATTACKS } from './attacks';
import { benchPostgres } from './support/postgres.js';
import { loadArchive, sourceSets } from './support/synthetic-archive.js';

const root = resolve(__dirname, '..', '..', '..');
const ALL: GeometricModel[] = ['scale', 'affine', 'perspective'];
const pct = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))]!;


export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      photos: { type: 'string', default: join(root, '.cache', 'photos') },
      limit: { type: 'string', default: '1000' },
      detect: { type: 'string', default: '4' },
      scale: { type: 'string', default: '1000,10000,100000' },
      'skip-quality': { type: 'boolean', default: false },
      leaks: { type: 'string', default: '10' },
      copies: { type: 'string', default: '5' },
    },
  });
  const files = readdirSync(values.photos).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort().slice(0, Number(values.limit));
  const detectPhotos = Number(values.detect);
  const levels = values.scale.split(',').map(Number).filter((n) => n > 0);
  const pg = benchPostgres();
  process.env.DATABASE_URL = pg.url;
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false, config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 } } });
  try {
    const { apiKey, id: accountId } = await server.createAccount('bench');
    const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${apiKey}` } })).arrayBuffer());
    const identification = server.app.container.get(IdentificationService);
    const visual = server.app.container.get(VisualIndexService);

    // 1. Register every photo, watermarked.
    const marked: Buffer[] = [];
    const paths: string[] = [];
    for (const f of files) {
      const e = await embed(readFileSync(join(values.photos, f)), generateKey());
      marked.push(e.image);
      const path = `/bench/photos/${f}`;
      const res = await server.call('PUT', `/api/v4/media${path}`, { key: apiKey, body: encodeLmk(e.registration, der), headers: { 'content-type': 'application/lmk' } });
      if (res.status !== 201) throw new Error(`${f}: ${res.status} ${res.text}`);
      paths.push(path);
    }
    console.log(`${files.length} photos registered watermarked; ${Object.keys(ATTACKS).length} attacks each, all other photos as distractors`);

    // 2. Recall@1, false matches, detection.
    if (!values['skip-quality']) await quality();
    async function quality(): Promise<void> {
      console.log('| attack | recall@1 | false matches | detected (first %d photos) | p50 ms |'.replace('%d', String(detectPhotos)));
      console.log('|---|---|---|---|---|');
      let hits = 0, queries = 0, falseMatches = 0, detected = 0, detectTried = 0;
      const failures: string[] = [];
      const falses: string[] = [];
      for (const [name, attack] of Object.entries(ATTACKS)) {
        let h = 0, fm = 0, d = 0, dt = 0;
        const ms: number[] = [];
        for (let i = 0; i < files.length; i++) {
          const query = await attack(marked[i]!);
          const withDetection = i < detectPhotos;
          const t0 = performance.now();
          const found = await identification.identify(accountId, query, { mode: 'near_duplicate', transforms: ALL, detect: withDetection });
          if (!withDetection) ms.push(performance.now() - t0);
          if (found[0]?.media.path === paths[i]) h++;
          else failures.push(`${name}:${files[i]}`);
          for (const r of found) if (r.media.path !== paths[i]) { fm++; falses.push(`${name}:${files[i]}->${r.media.name}(${r.inliers})`); }
          if (withDetection) {
            dt++;
            if (found.find((r) => r.media.path === paths[i])?.watermarked === true) d++;
          }
        }
        hits += h; queries += files.length; falseMatches += fm; detected += d; detectTried += dt;
        console.log(`| ${name} | ${(h / files.length).toFixed(3)} (${h}/${files.length}) | ${fm} | ${d}/${dt} | ${ms.length ? pct(ms, 0.5).toFixed(0) : '-'} |`);
    }
    console.log(`| **all** | **${(hits / queries).toFixed(3)}** (${hits}/${queries}) | **${falseMatches}** | ${detected}/${detectTried} | |`);
    if (failures.length) console.log(`missed: ${failures.join(', ')}`);
    if (falses.length) console.log(`false matches: ${falses.join(', ')}`);
    }

    // 3. Leak tracing: transactional copies of one original look the same; the mark names the leak.
    if (Number(values.leaks) > 0) await leaks(Number(values.leaks), Number(values.copies));
    async function leaks(originals: number, copies: number): Promise<void> {
      const account = await server.createAccount('leaks');
      const pub = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${account.apiKey}` } })).arrayBuffer());
      const given: { path: string; image: Buffer }[][] = [];
      for (const f of files.slice(0, originals)) {
        const source = readFileSync(join(values.photos, f));
        const put = async (path: string, registration: Parameters<typeof encodeLmk>[0]) => {
          const res = await server.call('PUT', `/api/v4/media${path}`, { key: account.apiKey, body: encodeLmk(registration, pub), headers: { 'content-type': 'application/lmk' } });
          if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
        };
        await put(`/leaks/${f}/original`, (await embed(source, generateKey())).registration);
        const recipients: { path: string; image: Buffer }[] = [];
        for (let c = 1; c <= copies; c++) {
          const e = await embed(source, generateKey(), { transactional: true });
          await put(`/leaks/${f}/copy-${c}`, e.registration);
          recipients.push({ path: `/leaks/${f}/copy-${c}`, image: e.image });
        }
        given.push(recipients);
      }
      console.log(`\nLeak tracing: ${given.length} originals x ${copies} transactional copies (+ the normal registration), one leaked copy per original and attack`);
      console.log('| attack | right copy first | wrong copy flagged watermarked | p50 ms | p95 ms |');
      console.log('|---|---|---|---|---|');
      let first = 0, wrong = 0, queries = 0;
      const all: number[] = [];
      const misses: string[] = [];
      for (const [a, [name, attack]] of Object.entries(ATTACKS).entries()) {
        let f1 = 0, w = 0;
        const ms: number[] = [];
        for (const [i, recipients] of given.entries()) {
          const leak = recipients[(i + a) % recipients.length]!;
          const query = await attack(leak.image);
          const t0 = performance.now();
          const found = await identification.identify(account.id, query, { mode: 'near_duplicate', transforms: ALL, detect: true });
          ms.push(performance.now() - t0);
          if (found[0]?.media.path === leak.path) f1++;
          else misses.push(`${name}:${leak.path}->${found[0]?.media.path ?? 'nothing'}`);
          w += found.filter((r) => r.watermarked === true && r.media.path !== leak.path).length;
        }
        first += f1; wrong += w; queries += given.length; all.push(...ms);
        console.log(`| ${name} | ${f1}/${given.length} | ${w} | ${pct(ms, 0.5).toFixed(0)} | ${pct(ms, 0.95).toFixed(0)} |`);
      }
      console.log(`| **all** | **${(first / queries).toFixed(3)}** (${first}/${queries}) | **${wrong}** | ${pct(all, 0.5).toFixed(0)} | ${pct(all, 0.95).toFixed(0)} |`);
      if (misses.length) console.log(`not first: ${misses.join(', ')}`);
    }

    // 4. Latency at scale, memory per media.
    const queryImages = await Promise.all(marked.slice(0, 20).map((m, i) => (i % 2 ? ATTACKS.crop50! : ATTACKS['resize50+jpeg70']!)(m)));
    // Distractors derived from real ORB sets of photographs that are not registered (wallpapers, copies originals).
    const sourceDirs = [join(root, '.cache', 'wallpapers'), join(root, '.cache', 'copies')].filter((d) => existsSync(d));
    const sources = await sourceSets(sourceDirs.flatMap((d) => readdirSync(d).filter((f) => /\.jpe?g$/i.test(f)).map((f) => readFileSync(join(d, f)))));
    let synthetic = 0;
    const db = server.app.dataSource;
    if (levels.length) {
      console.log('\n| indexed media | load s | p50 ms | p95 ms | recall@1 | postings/media |');
      console.log('|---|---|---|---|---|---|');
    }
    for (const level of levels) {
      const target = level - files.length;
      const t0 = performance.now();
      if (target > synthetic) await loadArchive(db, accountId, sources, synthetic + 1, target - synthetic);
      synthetic = Math.max(synthetic, target);
      await db.query('VACUUM ANALYZE visual_postings');
      await db.query('VACUUM ANALYZE visual_index');
      const warm = ((performance.now() - t0) / 1000).toFixed(0);
      const ms: number[] = [];
      let ok = 0;
      for (let round = 0; round < 3; round++) {
        for (const [i, q] of queryImages.entries()) {
          const t0 = performance.now();
          const prepared = await prepareQuery(q);
          const found = await identification.identify(accountId, prepared, { mode: 'near_duplicate', transforms: ['scale'], detect: false });
          ms.push(performance.now() - t0);
          if (round === 0 && found[0]?.media.path === paths[i]) ok++;
        }
      }
      const stats = await visual.stats(accountId);
      console.log(`| ${stats.entries} | ${warm} | ${pct(ms, 0.5).toFixed(0)} | ${pct(ms, 0.95).toFixed(0)} | ${ok}/${queryImages.length} | ${(stats.postings / stats.entries).toFixed(0)} |`);
    }
    console.log(`\nRSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    await server.close();
    pg.stop();
  }
}
