/**
 * Visual QA: finds the flattest 96 x 96 block of a tone range among the marked photos and renders original |
 * watermarked | difference x 8 (mid-grey = 0), each at 2x zoom (nearest neighbour), into one PNG.
 */
import sharp from 'sharp';
import { decodeRaw, lumaPlane, probeImage } from '@filigrane/vision';

interface Marked {
  name: string;
  original: Buffer;
  image: Buffer;
}

const BLOCK = 96;

/** 'dark': mean luma 12..60 (blacks where the JND used to mottle); 'flat': mid-tones 60..200. */
export type Region = 'dark' | 'flat';

export async function renderMottlingCheck(marked: Marked[], out: string, region: Region = 'dark'): Promise<string> {
  const [lo, hi] = region === 'dark' ? [12, 60] : [60, 200];
  let best: { score: number; name: string; x: number; y: number; originalIndex: number } | undefined;
  for (let i = 0; i < marked.length; i++) {
    const info = await probeImage(marked[i].image);
    if (info.width < 2 * BLOCK || info.height < 2 * BLOCK) continue;
    const raw = await decodeRaw(marked[i].image, info);
    const y = lumaPlane(raw);
    for (let by = 0; by + BLOCK <= info.height; by += BLOCK / 2) {
      for (let bx = 0; bx + BLOCK <= info.width; bx += BLOCK / 2) {
        let s = 0;
        let s2 = 0;
        for (let yy = by; yy < by + BLOCK; yy += 2)
          for (let xx = bx; xx < bx + BLOCK; xx += 2) {
            const v = y[yy * info.width + xx];
            s += v;
            s2 += v * v;
          }
        const n = (BLOCK / 2) ** 2;
        const mean = s / n;
        const sd = Math.sqrt(Math.max(0, s2 / n - mean * mean));
        // flat (low deviation) within the tone range; black (< 12) receives almost nothing
        if (mean < lo || mean > hi) continue;
        const score = sd + (region === 'dark' ? mean / 8 : 0);
        if (!best || score < best.score) best = { score, name: marked[i].name, x: bx, y: by, originalIndex: i };
      }
    }
  }
  return best ? render(marked[best.originalIndex], best, out) : 'no photo large enough';
}

async function render(m: Marked, at: { name: string; x: number; y: number }, out: string): Promise<string> {
  const region = { left: at.x, top: at.y, width: BLOCK, height: BLOCK };
  const crop = (img: Buffer): Promise<Buffer> => sharp(img).removeAlpha().toColourspace('srgb').extract(region).raw().toBuffer();
  const a = await crop(m.original);
  const b = await crop(m.image);
  const diff = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) diff[i] = Math.max(0, Math.min(255, 128 + 8 * (b[i] - a[i])));
  const zoom = (px: Buffer): Promise<Buffer> =>
    sharp(px, { raw: { width: BLOCK, height: BLOCK, channels: 3 } }).resize({ width: 2 * BLOCK, kernel: 'nearest' }).png().toBuffer();
  const gap = 8;
  const panels = await Promise.all([a, b, diff].map(zoom));
  await sharp({ create: { width: 3 * 2 * BLOCK + 2 * gap, height: 2 * BLOCK, channels: 3, background: '#ffffff' } })
    .composite(panels.map((input, i) => ({ input, left: i * (2 * BLOCK + gap), top: 0 })))
    .png()
    .toFile(out);
  return `${at.name} @ (${at.x},${at.y}) 96x96 at 2x: original | watermarked | difference x8 -> ${out}`;
}
