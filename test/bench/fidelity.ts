/**
 * File-level fidelity of embed(), measured with ImageMagick (an independent tool) on the files as
 * written: PSNR (`compare -metric PSNR original watermarked null:`) and the mean shift per channel
 * (`identify` channel means; ImageMagick applies no ICC profile, so these are the stored samples),
 * on sRGB originals and on Display P3 and Adobe RGB copies made from them with sharp.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { embed, generateKey } from '@filigrane/watermark';

/** PSNR in dB that ImageMagick's compare reports (it exits 1 when the images differ). */
export function comparePsnr(original: string, written: string): number {
  let text: string;
  try {
    text = execFileSync('compare', ['-metric', 'PSNR', original, written, 'null:'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    text = String((err as { stderr?: Buffer | string }).stderr ?? '');
  }
  const m = /^\s*(inf|[0-9.]+)/.exec(text);
  if (!m) throw new Error(`compare ${original} ${written}: ${text}`);
  return m[1] === 'inf' ? Infinity : Number(m[1]);
}

/** Mean of each colour channel in 8-bit levels, as ImageMagick reads the file. */
export function channelMeans(file: string): number[] {
  const out = execFileSync('identify', ['-format', '%[fx:255*mean.r] %[fx:255*mean.g] %[fx:255*mean.b]\n', `${file}[0]`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out.trim().split('\n')[0].split(' ').map(Number);
}

export interface FidelityRow {
  name: string;
  set: string;
  size: string;
  psnr: number;
  reportedPsnr: number;
  shift: number[];
  bytesIn: number;
  bytesOut: number;
}

/** Embeds `file`, writes the result into `outDir`, measures it with ImageMagick. */
export async function measureFile(file: string, set: string, outDir: string): Promise<FidelityRow> {
  const input = readFileSync(file);
  const marked = await embed(input, generateKey());
  const out = join(outDir, `${set}-${basename(file)}`);
  writeFileSync(out, marked.image);
  const before = channelMeans(file);
  const after = channelMeans(out);
  return {
    name: basename(file),
    set,
    size: `${marked.report.width}x${marked.report.height}`,
    psnr: comparePsnr(file, out),
    reportedPsnr: marked.report.psnr,
    shift: after.map((v, i) => v - before[i]),
    bytesIn: input.length,
    bytesOut: marked.image.length,
  };
}

/** A Display P3 or Adobe RGB copy of an sRGB photograph: pixels converted, profile embedded. */
export async function convertedCopy(file: string, profile: string, out: string): Promise<void> {
  await sharp(file).withIccProfile(profile).jpeg({ quality: 92 }).toFile(out);
}

const summary = (rows: FidelityRow[]): Record<string, number> => {
  const p = rows.map((r) => r.psnr);
  const abs = [0, 1, 2].map((c) => rows.reduce((s, r) => s + Math.abs(r.shift[c]), 0) / rows.length);
  const worst = [0, 1, 2].map((c) => Math.max(...rows.map((r) => Math.abs(r.shift[c]))));
  return {
    files: rows.length,
    psnrMin: Number(Math.min(...p).toFixed(2)),
    psnrMean: Number((p.reduce((a, b) => a + b, 0) / p.length).toFixed(2)),
    below44: p.filter((v) => v < 44).length,
    meanAbsShiftR: Number(abs[0].toFixed(3)),
    meanAbsShiftG: Number(abs[1].toFixed(3)),
    meanAbsShiftB: Number(abs[2].toFixed(3)),
    worstShift: Number(Math.max(...worst).toFixed(3)),
    bytesRatio: Number((rows.reduce((s, r) => s + r.bytesOut, 0) / rows.reduce((s, r) => s + r.bytesIn, 0)).toFixed(2)),
  };
};

/**
 * The fidelity section: every benchmark photo and every wallpaper as they are (sRGB), then Display
 * P3 and Adobe RGB copies of `colourLimit` of them.
 */
export async function fidelity(root: string, photosDir: string, outDir: string, colourLimit = 8): Promise<Record<string, unknown>> {
  const wallpapers = join(root, '.cache', 'wallpapers');
  if (!existsSync(join(root, '.cache', 'icc', 'AdobeRGB1998.icc')) || !existsSync(wallpapers)) {
    execFileSync('bash', [join(root, 'test', 'bench', 'fetch-wallpapers.sh'), wallpapers], { stdio: 'inherit' });
  }
  const adobe = join(root, '.cache', 'icc', 'AdobeRGB1998.icc');
  mkdirSync(outDir, { recursive: true });
  const list = (dir: string): string[] =>
    readdirSync(dir)
      .filter((f) => /\.(jpe?g|png)$/i.test(f))
      .sort()
      .map((f) => join(dir, f));
  const rows: FidelityRow[] = [];
  const log = (r: FidelityRow): void => {
    rows.push(r);
    console.log(
      `  ${r.set.padEnd(10)} ${r.name.padEnd(40)} ${r.size.padStart(10)}  compare ${r.psnr.toFixed(2)} dB (reported ${r.reportedPsnr.toFixed(2)})  shift ${r.shift.map((v) => v.toFixed(2)).join('/')}  ${r.bytesIn} -> ${r.bytesOut} B`,
    );
  };
  for (const f of list(photosDir)) log(await measureFile(f, 'photos', outDir));
  for (const f of list(wallpapers)) log(await measureFile(f, 'wallpapers', outDir));
  const sources = [...list(photosDir).filter((f) => /\.jpe?g$/i.test(f)).slice(0, colourLimit - 2), ...list(wallpapers).slice(0, 2)];
  const made = join(outDir, 'made');
  mkdirSync(made, { recursive: true });
  for (const [space, profile] of [
    ['p3', 'p3'],
    ['adobe-rgb', adobe],
  ] as const) {
    for (const f of sources) {
      const copy = join(made, `${space}-${basename(f).replace(/\.\w+$/, '.jpg')}`);
      if (!existsSync(copy)) await convertedCopy(f, profile, copy);
      log(await measureFile(copy, space, outDir));
    }
  }
  const sets = ['photos', 'wallpapers', 'p3', 'adobe-rgb'];
  const bySet: Record<string, unknown> = {};
  for (const s of sets) bySet[s] = summary(rows.filter((r) => r.set === s));
  bySet.srgb = summary(rows.filter((r) => r.set === 'photos' || r.set === 'wallpapers'));
  console.log('\nfile-level fidelity (ImageMagick compare / identify on the written files)');
  console.log('set          files  PSNR min  PSNR mean  <44 dB  mean |shift| R/G/B      worst |shift|  bytes out/in');
  for (const s of [...sets, 'srgb']) {
    const v = bySet[s] as Record<string, number>;
    console.log(
      `${s.padEnd(12)} ${String(v.files).padStart(5)}  ${v.psnrMin.toFixed(2).padStart(8)}  ${v.psnrMean.toFixed(2).padStart(9)}  ${String(v.below44).padStart(6)}  ${[v.meanAbsShiftR, v.meanAbsShiftG, v.meanAbsShiftB].map((x) => x.toFixed(3)).join('/').padStart(20)}  ${v.worstShift.toFixed(3).padStart(13)}  ${v.bytesRatio.toFixed(2).padStart(12)}`,
    );
  }
  return { sets: bySet, files: rows };
}
