/**
 * `npm run bench -- watermark [--photos DIR] [--keys N] [--out FILE] [--limit N] [--attacks a,b] [--skip-speed | --speed-only]
 *   [--skip-fidelity | --fidelity-only] [--skip-tool | --tool-only] [--tool-rounds N] [--tool PATH] [--tool-before PATH]`
 * The evaluation protocol of research/watermark.md section 4: 15 attacks on a folder of photos,
 * informed and blind TPR at p < 1e-6, log10 p, PSNR, false positives over wrong keys and unmarked
 * originals, embed ms/MP at 1/3/12/24 MP, detect ms per candidate, peak RSS, and the file-level
 * fidelity (fidelity.ts: ImageMagick PSNR and colour shift of the written files, sRGB, Display P3
 * and Adobe RGB, benchmark photos and large wallpapers), and the offline tool's whole-process time and
 * peak RSS against ImageMagick on a 17.9 MP JPEG (tool-speed.ts) with the endpoint's embedding time. Prints a table and
 * writes the same as JSON (default bench-results/watermark.json).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { detect, embed, generateKey, prepareQuery, type Registration } from '@filigrane/watermark';
import { analyseDetection, gaussianCarrier, log10PValue, normalisedCorrelation, type DetectionAnalysis } from '@filigrane/watermark/internal';
import { ATTACKS } from './attacks';
import { fidelity } from './fidelity';
import { endpointSpeed, toolSpeed } from './tool-speed';
import { renderMottlingCheck } from './mottling';

// compiled to test/dist/bench: three levels below the repository root
const root = resolve(__dirname, '..', '..', '..');
const LOG_THRESHOLD = -6;

interface Args {
  photos: string;
  keys: number;
  out: string;
  limit: number;
  skipSpeed: boolean;
  speedOnly: boolean;
  skipFidelity: boolean;
  fidelityOnly: boolean;
  skipTool: boolean;
  toolOnly: boolean;
  toolRounds: number;
  tool?: string;
  /** Another build of the tool run interleaved with the first (before/after). */
  toolBefore?: string;
  attacks?: string[];
}

function parse(args: string[]): Args {
  const get = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  return {
    photos: resolve(get('--photos') ?? join(root, '.cache', 'photos')),
    keys: Number(get('--keys') ?? 0),
    out: resolve(get('--out') ?? join(root, 'bench-results', 'watermark.json')),
    limit: Number(get('--limit') ?? Infinity),
    skipSpeed: args.includes('--skip-speed'),
    speedOnly: args.includes('--speed-only'),
    skipFidelity: args.includes('--skip-fidelity'),
    fidelityOnly: args.includes('--fidelity-only'),
    skipTool: args.includes('--skip-tool'),
    toolOnly: args.includes('--tool-only'),
    toolRounds: Number(get('--tool-rounds') ?? 5),
    tool: get('--tool'),
    toolBefore: get('--tool-before'),
    attacks: get('--attacks')?.split(','),
  };
}

const median = (v: number[]): number => {
  if (v.length === 0) return NaN;
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (v: number[], q: number): number => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))];

interface AttackRow {
  registered: number;
  informed: number;
  blind: number;
  informedLog10p: number[];
  blindLog10p: number[];
  failures: string[];
}

/** Wrong-key p-values of stored features, both modes sharing one carrier per key. */
function wrongKeyTests(analyses: DetectionAnalysis[], keys: number, counts: Record<string, number[]>): void {
  for (let k = 0; k < keys; k++) {
    const key = generateKey();
    const carriers = new Map<number, Float64Array>();
    for (const a of analyses) {
      for (const mode of ['informed', 'blind'] as const) {
        let min = 0;
        for (const f of a.features) {
          const x = f[mode];
          if (!x) continue;
          let u = carriers.get(x.length);
          if (!u) carriers.set(x.length, (u = gaussianCarrier(key, x.length)));
          min = Math.min(min, log10PValue(normalisedCorrelation(x, u), x.length));
        }
        counts[mode].push(Math.min(0, min + Math.log10(Math.max(1, a.family))));
      }
    }
  }
}

function rates(log10ps: number[]): Record<string, number> {
  const n = log10ps.length;
  const at = (t: number): number => log10ps.filter((p) => p < t).length / n;
  return { tests: n, 'p<0.1': at(-1), 'p<0.01': at(-2), 'p<1e-3': at(-3), 'p<1e-6': at(-6), minLog10p: Math.min(...log10ps) };
}

async function speed(photo: string): Promise<Record<string, unknown>[]> {
  const dir = join(root, '.cache', 'bench-speed');
  mkdirSync(dir, { recursive: true });
  const rows: Record<string, unknown>[] = [];
  for (const mp of [1, 3, 12, 24]) {
    const file = join(dir, `synthetic-${mp}mp.jpg`);
    const meta = await sharp(photo).metadata();
    const s = Math.sqrt((mp * 1e6) / (meta.width! * meta.height!));
    if (!existsSync(file)) {
      await sharp(photo, { limitInputPixels: false })
        .resize({ width: Math.round(meta.width! * s), height: Math.round(meta.height! * s), kernel: 'lanczos3' })
        .jpeg({ quality: 90 })
        .toFile(file);
    }
    const child = execFileSync(process.execPath, [join(__dirname, 'embed-once.js'), file, '3'], { encoding: 'utf8' });
    const r = JSON.parse(child) as { width: number; height: number; runs: { ms: number; totalMs: number; psnr: number }[]; maxRssMB: number };
    const mpx = (r.width * r.height) / 1e6;
    const warm = r.runs.slice(1);
    rows.push({
      megapixels: Number(mpx.toFixed(2)),
      size: `${r.width}x${r.height}`,
      embedMsPerMPCold: Number((r.runs[0].ms / mpx).toFixed(1)),
      embedMsPerMP: Number((median(warm.map((x) => x.ms)) / mpx).toFixed(1)),
      totalMs: Math.round(median(warm.map((x) => x.totalMs))),
      totalMsCold: Math.round(r.runs[0].totalMs),
      psnr: Number(r.runs[0].psnr.toFixed(2)),
      peakRssMB: Math.round(r.maxRssMB),
    });
    console.log(`  speed ${JSON.stringify(rows[rows.length - 1])}`);
  }
  return rows;
}

export async function run(argv: string[]): Promise<void> {
  const args = parse(argv);
  const t0 = performance.now();
  if (!existsSync(args.photos) && args.photos === join(root, '.cache', 'photos')) {
    execFileSync('bash', [join(root, 'test', 'bench', 'fetch-photos.sh'), args.photos], { stdio: 'inherit' });
  }
  const photos = readdirSync(args.photos)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort()
    .slice(0, args.limit);
  if (photos.length === 0) throw new Error(`no JPEG/PNG photos in ${args.photos}`);
  if (args.toolOnly) {
    const tool = toolSpeed(root, args.toolRounds, args.tool, args.toolBefore);
    const endpoint = args.tool ? [] : await endpointSpeed(root);
    const out = args.out.replace(/\.json$/, '-tool.json');
    mkdirSync(resolve(out, '..'), { recursive: true });
    writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), toolSpeed: tool, endpointSpeed: endpoint }, null, 2)}\n`);
    console.log(`written ${out}`);
    return;
  }
  if (args.speedOnly) {
    const rows = await speed(join(args.photos, photos.includes('starry_night.jpg') ? 'starry_night.jpg' : photos[0]));
    const out = args.out.replace(/\.json$/, '-speed.json');
    mkdirSync(resolve(out, '..'), { recursive: true });
    writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), embedSpeed: rows }, null, 2)}\n`);
    console.log(`written ${out}`);
    return;
  }
  const fidelityDir = join(resolve(args.out, '..'), 'fidelity');
  if (args.fidelityOnly) {
    const fid = await fidelity(root, args.photos, fidelityDir);
    const out = args.out.replace(/\.json$/, '-fidelity.json');
    writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), fidelity: fid }, null, 2)}\n`);
    console.log(`written ${out}`);
    return;
  }
  const attackNames = Object.keys(ATTACKS).filter((a) => !args.attacks || args.attacks.includes(a));
  const rows: Record<string, AttackRow> = Object.fromEntries(
    attackNames.map((a) => [a, { registered: 0, informed: 0, blind: 0, informedLog10p: [], blindLog10p: [], failures: [] }]),
  );
  const psnrs: number[] = [];
  const h0Analyses: DetectionAnalysis[] = [];
  const unmarked: Record<string, number[]> = { informed: [], blind: [] };
  const detectMs: number[] = [];
  const candidateMs: number[] = [];
  const registrations: { name: string; reg: Registration; original: Buffer; image: Buffer }[] = [];

  console.log(`photos: ${photos.length} from ${args.photos}`);
  for (const name of photos) {
    const original = readFileSync(join(args.photos, name));
    const marked = await embed(original, generateKey());
    psnrs.push(marked.report.psnr);
    registrations.push({ name, reg: marked.registration, original, image: marked.image });
    const line: string[] = [];
    for (const attack of attackNames) {
      const query = await ATTACKS[attack](marked.image);
      const a = await analyseDetection(query, marked.registration, { modes: ['informed', 'blind'] });
      const row = rows[attack];
      const inf = a.outcomes.informed!;
      const bl = a.outcomes.blind!;
      if (a.diagnostics.inliers !== null || a.features.some((f) => f.name.startsWith('resize'))) row.registered++;
      if (inf.watermarked) row.informed++;
      else row.failures.push(`${name} (${inf.log10p.toFixed(1)})`);
      if (bl.watermarked) row.blind++;
      row.informedLog10p.push(inf.log10p);
      row.blindLog10p.push(bl.log10p);
      line.push(`${attack}:${inf.log10p.toFixed(0)}/${bl.log10p.toFixed(0)}`);
      if (attack === 'jpeg50' || attack === 'crop50') {
        // Every hypothesis evaluated, so the wrong-key study sees the full family.
        h0Analyses.push(await analyseDetection(query, marked.registration, { modes: ['informed', 'blind'], exhaustive: true }));
      }
      if (attack === 'jpeg50' || attack === 'crop50' || attack === 'rot15+jpeg70') {
        // Production path timing: whole detect() from bytes, then per candidate with a prepared query.
        let t = performance.now();
        await detect(query, marked.registration);
        detectMs.push(performance.now() - t);
        const prepared = await prepareQuery(query);
        await prepared.orb();
        t = performance.now();
        await detect(prepared, marked.registration);
        candidateMs.push(performance.now() - t);
      }
    }
    // Unmarked original (and its JPEG 50) with the true key: the realistic false-positive case.
    for (const q of [original, await sharp(original).jpeg({ quality: 50 }).toBuffer()]) {
      const a = await analyseDetection(q, marked.registration, { modes: ['informed', 'blind'], exhaustive: true });
      unmarked.informed.push(a.outcomes.informed!.log10p);
      unmarked.blind.push(a.outcomes.blind!.log10p);
    }
    console.log(`  ${name} ${marked.report.width}x${marked.report.height} psnr ${marked.report.psnr.toFixed(2)} | ${line.join(' ')}`);
  }

  const keysPerQuery = args.keys > 0 ? args.keys : Math.ceil(100_000 / h0Analyses.length);
  console.log(`wrong-key study: ${h0Analyses.length} queries x ${keysPerQuery} keys`);
  const wrong: Record<string, number[]> = { informed: [], blind: [] };
  const tH0 = performance.now();
  wrongKeyTests(h0Analyses, keysPerQuery, wrong);
  const h0Seconds = (performance.now() - tH0) / 1000;

  const n = photos.length;
  const table = attackNames.map((attack) => {
    const r = rows[attack];
    return {
      attack,
      registered: `${r.registered}/${n}`,
      informedTPR: Number((r.informed / n).toFixed(3)),
      blindTPR: Number((r.blind / n).toFixed(3)),
      informedMedianLog10p: Number(median(r.informedLog10p).toFixed(1)),
      informedWorstLog10p: Number(Math.max(...r.informedLog10p).toFixed(1)),
      blindMedianLog10p: Number(median(r.blindLog10p).toFixed(1)),
      failures: r.failures,
    };
  });
  console.log('\nattack              reg     informed  blind   median log10p  worst log10p  blind median');
  for (const r of table) {
    console.log(
      `${r.attack.padEnd(18)} ${r.registered.padStart(6)}  ${(r.informedTPR * 100).toFixed(1).padStart(6)}%  ${(r.blindTPR * 100).toFixed(1).padStart(6)}%  ${String(r.informedMedianLog10p).padStart(12)}  ${String(r.informedWorstLog10p).padStart(12)}  ${String(r.blindMedianLog10p).padStart(12)}`,
    );
  }
  const fpr = {
    wrongKeyInformed: rates(wrong.informed),
    wrongKeyBlind: rates(wrong.blind),
    unmarkedTrueKeyInformed: rates(unmarked.informed),
    unmarkedTrueKeyBlind: rates(unmarked.blind),
    wrongKeySeconds: Number(h0Seconds.toFixed(1)),
  };
  console.log('\nfalse positives', JSON.stringify(fpr, null, 1));
  const psnr = { min: Math.min(...psnrs), mean: psnrs.reduce((a, b) => a + b, 0) / n, max: Math.max(...psnrs) };
  console.log(`PSNR of the written files (reported by embed) min ${psnr.min.toFixed(2)} mean ${psnr.mean.toFixed(2)} max ${psnr.max.toFixed(2)} dB`);
  const detection = {
    detectMsMedian: Math.round(median(detectMs)),
    detectMsP90: Math.round(pct(detectMs, 0.9)),
    perCandidateMsMedian: Math.round(median(candidateMs)),
    perCandidateMsP90: Math.round(pct(candidateMs, 0.9)),
    samples: detectMs.length,
  };
  console.log('detect', JSON.stringify(detection));

  mkdirSync(resolve(args.out, '..'), { recursive: true });
  const mottling = [
    await renderMottlingCheck(registrations, join(resolve(args.out, '..'), 'mottling-dark.png'), 'dark'),
    await renderMottlingCheck(registrations, join(resolve(args.out, '..'), 'mottling-flat.png'), 'flat'),
  ];
  console.log(`mottling check:\n  ${mottling.join('\n  ')}`);
  const fid = args.skipFidelity ? undefined : await fidelity(root, args.photos, fidelityDir);
  const speedRows = args.skipSpeed ? [] : await speed(join(args.photos, photos.includes('starry_night.jpg') ? 'starry_night.jpg' : photos[0]));
  const toolRows = args.skipTool ? [] : toolSpeed(root, args.toolRounds, args.tool, args.toolBefore);
  const endpointRows = args.skipTool ? [] : await endpointSpeed(root);
  const result = {
    date: new Date().toISOString(),
    photos: n,
    photosDir: args.photos,
    threshold: 10 ** LOG_THRESHOLD,
    attacks: table,
    psnr,
    fidelity: fid,
    falsePositives: fpr,
    detection,
    embedSpeed: speedRows,
    toolSpeed: toolRows,
    endpointSpeed: endpointRows,
    mottlingImage: mottling,
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    wallSeconds: Math.round((performance.now() - t0) / 1000),
  };
  mkdirSync(resolve(args.out, '..'), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`peak RSS ${result.peakRssMB} MB, wall ${result.wallSeconds} s; written ${args.out}`);
}
