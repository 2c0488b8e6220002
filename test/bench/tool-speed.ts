/**
 * The offline tool against the codec floor (issue 18, requirement 6): the whole tool process and a
 * plain ImageMagick decode + encode (`convert in.jpg -quality 92 out.jpg`) on the same 17.9 MP JPEGs,
 * alternating in the same run, wall time and peak RSS of each process (GNU time's %M), then the
 * tool's output measured with ImageMagick: PSNR (`compare`) and mean colour shift (`identify`).
 * The files are the issue's: the Kleiber wallpaper brought to 5640 x 3172 by convert (which keeps
 * its 4:2:2 chroma, written 4:4:4 by the tool) and the same at 4:2:0, the usual camera layout; and the
 * Infinite-Sea wallpaper as shipped (4096 x 4096, progressive, quality 100, 4:4:4: the costliest
 * kind of JPEG to decode).
 * The tool is the single executable when `npm run build:tool` has made it, else `node` on its dist.
 * `before` (another build: an executable or a .js entry) runs interleaved with it, round by round, for
 * a before/after on the same minutes of a shared machine. CPU time (user + system, GNU time) is
 * recorded beside wall time: on a loaded machine it is the steadier figure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { channelMeans, comparePsnr } from './fidelity';

export interface ToolSpeedRow {
  /** 'after' (this build, or --tool) or 'before' (--tool-before). */
  build: string;
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
  /** CPU time (user + system) of each run, ms. */
  toolCpuMs: number[];
  convertCpuMs: number[];
  /** Median tool CPU time over median convert CPU time. */
  cpuRatio: number;
  /** 1-minute load average at the start and the end of the file's rounds. */
  load: number[];
  psnr: number;
  shift: number[];
  bytesIn: number;
  bytesOut: number;
}

const median = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface Run {
  ms: number;
  cpuMs: number;
  rssMiB: number;
}

/** Runs a command under GNU time: wall ms (measured here), CPU ms and peak RSS in MiB (the child's). */
function timed(cmd: string, args: string[]): Run {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'maxrss-kb %M cpu-s %U %S', cmd, ...args], { encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const m = /maxrss-kb (\d+) cpu-s ([\d.]+) ([\d.]+)/.exec(r.stderr);
  if (!m) throw new Error(`no maxrss from /usr/bin/time: ${r.stderr}`);
  return { ms, cpuMs: (Number(m[2]) + Number(m[3])) * 1000, rssMiB: Number(m[1]) / 1024 };
}

function toolCommand(root: string, override?: string): { cmd: string; args: string[]; label: string } {
  if (override) return override.endsWith('.js') ? { cmd: process.execPath, args: [override], label: `node ${override}` } : { cmd: override, args: [], label: override };
  const sea = join(root, 'packages', 'tool', 'release', 'filigrane-mark-linux-x64');
  if (existsSync(sea)) return { cmd: sea, args: [], label: 'single executable' };
  return { cmd: process.execPath, args: [join(root, 'packages', 'tool', 'dist', 'src', 'main.js')], label: 'node dist/src/main.js' };
}

/** The issue's 17.9 MP files, made once from the Kleiber wallpaper, then the 16.8 MP progressive one. */
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
  const made = files.map(({ name, extra }) => {
    const file = join(dir, name);
    if (!existsSync(file)) execFileSync('convert', [source, '-resize', '5640x3172!', ...extra, '-quality', '92', file]);
    return file;
  });
  return [...made, join(wallpapers, 'Infinite-Sea_by_Aury88.jpg')];
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

/**
 * `toolPath`: another build of the tool to time (an executable, or a .js entry run with node);
 * `beforePath`: a second build run interleaved with the first (e.g. main's, for a before/after).
 */
export function toolSpeed(root: string, rounds = 5, toolPath?: string, beforePath?: string): ToolSpeedRow[] {
  const tools = [{ build: 'after', ...toolCommand(root, toolPath) }];
  if (beforePath) tools.push({ build: 'before', ...toolCommand(root, beforePath) });
  const work = join(root, 'bench-results', 'tool-speed');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const der = join(work, 'account.der');
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(der, publicKey.export({ format: 'der', type: 'spki' }));
  console.log(
    `\ntool speed (${tools.map((t) => `${t.build}: ${t.label}`).join(', ')}) against convert in.jpg -quality 92 out.jpg, ${rounds} rounds, alternating`,
  );
  const rows: ToolSpeedRow[] = [];
  for (const file of inputs(root)) {
    const im = join(work, 'convert.jpg');
    const outputs = tools.map((t) => ({ out: join(work, `marked-${t.build}.jpg`), lmk: join(work, `marked-${t.build}.lmk`) }));
    const toolRuns: Run[][] = tools.map(() => []);
    const convertRuns: Run[] = [];
    const runTool = (i: number): void => {
      const { out, lmk } = outputs[i];
      rmSync(out, { force: true });
      rmSync(lmk, { force: true });
      toolRuns[i].push(timed(tools[i].cmd, [...tools[i].args, file, out, lmk, der]));
    };
    const runConvert = (): void => {
      convertRuns.push(timed('convert', [file, '-quality', '92', im]));
    };
    // First run of an executable unpacks its codec library: not counted.
    tools.forEach((_, i) => runTool(i));
    toolRuns.forEach((r) => (r.length = 0));
    const load = [loadavg()[0]];
    // Each round runs every build and convert, the order rotating so none always follows another.
    const order = [-1, ...tools.map((_, i) => i)];
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < order.length; k++) {
        const j = order[(k + round) % order.length];
        if (j < 0) runConvert();
        else runTool(j);
      }
    }
    load.push(loadavg()[0]);
    const dims = execFileSync('identify', ['-format', '%wx%h %[jpeg:sampling-factor]', file], { encoding: 'utf8' }).split(' ');
    const before = channelMeans(file);
    const convertMs = convertRuns.map((r) => r.ms);
    const convertCpuMs = convertRuns.map((r) => r.cpuMs);
    tools.forEach((tool, i) => {
      const { out } = outputs[i];
      const after = channelMeans(out);
      const toolMs = toolRuns[i].map((r) => r.ms);
      const toolCpuMs = toolRuns[i].map((r) => r.cpuMs);
      const row: ToolSpeedRow = {
        build: tool.build,
        file: file.split('/').pop()!,
        size: dims[0],
        sampling: dims[1],
        toolMs: toolMs.map(Math.round),
        convertMs: convertMs.map(Math.round),
        toolRssMiB: toolRuns[i].map((r) => Math.round(r.rssMiB)),
        convertRssMiB: convertRuns.map((r) => Math.round(r.rssMiB)),
        medianToolMs: Math.round(median(toolMs)),
        medianConvertMs: Math.round(median(convertMs)),
        ratio: Number((median(toolMs) / median(convertMs)).toFixed(2)),
        medianRoundRatio: Number(median(toolMs.map((t, i) => t / convertMs[i])).toFixed(2)),
        peakToolRssMiB: Math.round(Math.max(...toolRuns[i].map((r) => r.rssMiB))),
        toolCpuMs: toolCpuMs.map(Math.round),
        convertCpuMs: convertCpuMs.map(Math.round),
        cpuRatio: Number((median(toolCpuMs) / median(convertCpuMs)).toFixed(2)),
        load: load.map((l) => Number(l.toFixed(2))),
        psnr: Number(comparePsnr(file, out).toFixed(2)),
        shift: after.map((v, i) => Number((v - before[i]).toFixed(3))),
        bytesIn: statSync(file).size,
        bytesOut: statSync(out).size,
      };
      rows.push(row);
      console.log(
        `  ${row.build} ${row.file} ${row.size} ${row.sampling}: tool ${row.medianToolMs} ms (${row.toolMs.join(' ')}), convert ${row.medianConvertMs} ms (${row.convertMs.join(' ')}), ` +
          `ratio ${row.ratio} (per round ${row.medianRoundRatio}), CPU ratio ${row.cpuRatio} (tool ${row.toolCpuMs.join(' ')} ms, convert ${row.convertCpuMs.join(' ')}), ` +
          `tool peak RSS ${row.peakToolRssMiB} MiB (convert ${Math.max(...row.convertRssMiB)}), ` +
          `compare PSNR ${row.psnr} dB, shift R/G/B ${row.shift.join('/')}, ${row.bytesIn} -> ${row.bytesOut} B, load ${row.load.join(' -> ')}`,
      );
    });
  }
  return rows;
}
