/**
 * The offline tool against the codec floor (issue 18, requirement 6): the whole tool process and a
 * plain ImageMagick decode + encode (`convert in.jpg -quality 92 out.jpg`) on the same 17.9 MP JPEGs,
 * alternating in the same run, wall time and peak RSS of each process (GNU time's %M), then the
 * tool's output measured with ImageMagick: PSNR (`compare`) and mean colour shift (`identify`).
 * The files are the issue's: the Kleiber wallpaper brought to 5640 x 3172 by convert (which keeps
 * its 4:2:2 chroma, written 4:4:4 by the tool) and the same at 4:2:0, the usual camera layout.
 * The tool is the single executable when `npm run build:tool` has made it, else `node` on its dist.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { channelMeans, comparePsnr } from './fidelity';

export interface ToolSpeedRow {
  file: string;
  size: string;
  sampling: string;
  toolMs: number[];
  convertMs: number[];
  toolRssMiB: number[];
  convertRssMiB: number[];
  medianToolMs: number;
  medianConvertMs: number;
  /** Median tool time over median convert time. */
  ratio: number;
  /** Median of the per-round ratios (each round runs both back to back). */
  medianRoundRatio: number;
  peakToolRssMiB: number;
  psnr: number;
  shift: number[];
  bytesIn: number;
  bytesOut: number;
}

const median = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Runs a command under GNU time: wall ms (measured here) and peak RSS in MiB (the child's maxrss). */
function timed(cmd: string, args: string[]): { ms: number; rssMiB: number } {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'maxrss-kb %M', cmd, ...args], { encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const m = /maxrss-kb (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`no maxrss from /usr/bin/time: ${r.stderr}`);
  return { ms, rssMiB: Number(m[1]) / 1024 };
}

function toolCommand(root: string, override?: string): { cmd: string; args: string[]; label: string } {
  if (override) return override.endsWith('.js') ? { cmd: process.execPath, args: [override], label: `node ${override}` } : { cmd: override, args: [], label: override };
  const sea = join(root, 'packages', 'tool', 'release', 'filigrane-mark-linux-x64');
  if (existsSync(sea)) return { cmd: sea, args: [], label: 'single executable' };
  return { cmd: process.execPath, args: [join(root, 'packages', 'tool', 'dist', 'src', 'main.js')], label: 'node dist/src/main.js' };
}

/** The 17.9 MP files, made once from the Kleiber wallpaper. */
function inputs(root: string): string[] {
  const wallpapers = join(root, '.cache', 'wallpapers');
  const source = join(wallpapers, 'Kleiber_by_Lukas_Baubkus.jpg');
  if (!existsSync(source)) execFileSync('bash', [join(root, 'test', 'bench', 'fetch-wallpapers.sh'), wallpapers], { stdio: 'inherit' });
  const dir = join(root, '.cache', 'bench-speed');
  mkdirSync(dir, { recursive: true });
  const files = [
    { name: 'kleiber-5640x3172-422.jpg', extra: [] as string[] },
    { name: 'kleiber-5640x3172-420.jpg', extra: ['-sampling-factor', '2x2'] },
  ];
  return files.map(({ name, extra }) => {
    const file = join(dir, name);
    if (!existsSync(file)) execFileSync('convert', [source, '-resize', '5640x3172!', ...extra, '-quality', '92', file]);
    return file;
  });
}

interface EmbedRunnerLike {
  run(task: { original: Uint8Array; publicKeyDer: Uint8Array; maxPixels: number }): Promise<{ image: Buffer; lmk: Buffer }>;
}

/**
 * The watermarking endpoint's embedding path on the same files: the plugin's EmbedRunner (a worker
 * thread per task running embed() and sealing the .lmk), timed from the task to the reply, in this
 * process (no HTTP, queue or storage). Median of `rounds` after one warm-up.
 */
export async function endpointSpeed(root: string, rounds = 3): Promise<{ file: string; ms: number[]; medianMs: number }[]> {
  // The compiled plugin file, loaded at run time: the bench does not build against plugin internals.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EmbedRunner } = require(join(root, 'plugins', 'watermarking', 'dist', 'src', 'embed-runner.js')) as {
    EmbedRunner: new (size?: number) => EmbedRunnerLike;
  };
  const runner = new EmbedRunner(1);
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyDer = publicKey.export({ format: 'der', type: 'spki' });
  const rows: { file: string; ms: number[]; medianMs: number }[] = [];
  console.log('endpoint embedding (EmbedRunner worker: embed + .lmk)');
  for (const file of inputs(root)) {
    const original = readFileSync(file);
    const ms: number[] = [];
    for (let i = 0; i <= rounds; i++) {
      const t = performance.now();
      await runner.run({ original, publicKeyDer, maxPixels: 40_000_000 });
      if (i > 0) ms.push(Math.round(performance.now() - t));
    }
    rows.push({ file: file.split('/').pop()!, ms, medianMs: Math.round(median(ms)) });
    console.log(`  ${rows[rows.length - 1].file}: ${rows[rows.length - 1].medianMs} ms (${ms.join(' ')})`);
  }
  return rows;
}

/** `toolPath`: another build of the tool to time (an executable, or a .js entry run with node), e.g. main's for a before/after. */
export function toolSpeed(root: string, rounds = 5, toolPath?: string): ToolSpeedRow[] {
  const tool = toolCommand(root, toolPath);
  const work = join(root, 'bench-results', 'tool-speed');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const der = join(work, 'account.der');
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(der, publicKey.export({ format: 'der', type: 'spki' }));
  console.log(`\ntool speed (${tool.label}) against convert in.jpg -quality 92 out.jpg, ${rounds} rounds, alternating`);
  const rows: ToolSpeedRow[] = [];
  for (const file of inputs(root)) {
    const out = join(work, 'marked.jpg');
    const lmk = join(work, 'marked.lmk');
    const im = join(work, 'convert.jpg');
    const toolRuns: { ms: number; rssMiB: number }[] = [];
    const convertRuns: { ms: number; rssMiB: number }[] = [];
    const runTool = (): void => {
      rmSync(out, { force: true });
      rmSync(lmk, { force: true });
      toolRuns.push(timed(tool.cmd, [...tool.args, file, out, lmk, der]));
    };
    const runConvert = (): void => {
      convertRuns.push(timed('convert', [file, '-quality', '92', im]));
    };
    runTool(); // first run of the executable unpacks its codec library: not counted
    toolRuns.length = 0;
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        runConvert();
        runTool();
      } else {
        runTool();
        runConvert();
      }
    }
    const dims = execFileSync('identify', ['-format', '%wx%h %[jpeg:sampling-factor]', file], { encoding: 'utf8' }).split(' ');
    const before = channelMeans(file);
    const after = channelMeans(out);
    const toolMs = toolRuns.map((r) => r.ms);
    const convertMs = convertRuns.map((r) => r.ms);
    const row: ToolSpeedRow = {
      file: file.split('/').pop()!,
      size: dims[0],
      sampling: dims[1],
      toolMs: toolMs.map(Math.round),
      convertMs: convertMs.map(Math.round),
      toolRssMiB: toolRuns.map((r) => Math.round(r.rssMiB)),
      convertRssMiB: convertRuns.map((r) => Math.round(r.rssMiB)),
      medianToolMs: Math.round(median(toolMs)),
      medianConvertMs: Math.round(median(convertMs)),
      ratio: Number((median(toolMs) / median(convertMs)).toFixed(2)),
      medianRoundRatio: Number(median(toolMs.map((t, i) => t / convertMs[i])).toFixed(2)),
      peakToolRssMiB: Math.round(Math.max(...toolRuns.map((r) => r.rssMiB))),
      psnr: Number(comparePsnr(file, out).toFixed(2)),
      shift: after.map((v, i) => Number((v - before[i]).toFixed(3))),
      bytesIn: statSync(file).size,
      bytesOut: statSync(out).size,
    };
    rows.push(row);
    console.log(
      `  ${row.file} ${row.size} ${row.sampling}: tool ${row.medianToolMs} ms (${row.toolMs.join(' ')}), convert ${row.medianConvertMs} ms (${row.convertMs.join(' ')}), ` +
        `ratio ${row.ratio} (per round ${row.medianRoundRatio}), tool peak RSS ${row.peakToolRssMiB} MiB (convert ${Math.max(...row.convertRssMiB)}), ` +
        `compare PSNR ${row.psnr} dB, shift R/G/B ${row.shift.join('/')}, ${row.bytesIn} -> ${row.bytesOut} B`,
    );
  }
  return rows;
}
