/**
 * Child process of the watermark benchmark: decode + embed + encode one file `runs` times and print
 * JSON timings and the peak RSS of this process alone (the parent has opencv.js and photos loaded).
 * Usage: node embed-once.js <image> <runs>
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { embed, generateKey } from '@filigrane/watermark';

async function main(): Promise<void> {
  const [file, runsArg] = process.argv.slice(2);
  const input = readFileSync(file);
  const runs: { ms: number; totalMs: number; psnr: number }[] = [];
  for (let i = 0; i < Number(runsArg ?? 3); i++) {
    const t0 = performance.now();
    const r = await embed(input, generateKey());
    runs.push({ ms: r.report.ms, totalMs: performance.now() - t0, psnr: r.report.psnr });
  }
  const { width, height } = await sharp(input).metadata();
  process.stdout.write(`${JSON.stringify({ width, height, runs, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
