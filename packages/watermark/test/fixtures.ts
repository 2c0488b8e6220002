/**
 * Photo-like synthetic images made in the tests (no files committed): smooth shading, a few hard
 * edges and deterministic texture, enough for ORB to register and for the JND to vary.
 */
import sharp from 'sharp';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Interleaved RGB (or RGBA with a gradient alpha) pixels. */
export function syntheticPixels(width: number, height: number, seed = 1, channels: 3 | 4 = 3): Buffer {
  const r = rng(seed);
  const blobs = Array.from({ length: 40 }, () => ({
    x: r() * width,
    y: r() * height,
    rad: (0.03 + 0.12 * r()) * Math.min(width, height),
    c: [r() * 255, r() * 255, r() * 255],
  }));
  const out = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      let base = [60 + 120 * u, 80 + 90 * v, 140 - 60 * u * v];
      for (const b of blobs) {
        const d = Math.hypot(x - b.x, y - b.y);
        if (d < b.rad) base = b.c.map((c, i) => 0.45 * base[i] + 0.55 * c);
      }
      const tex = 14 * Math.sin(x * 0.9 + 3 * Math.sin(y * 0.21)) * Math.sin(y * 0.7) + 8 * (r() - 0.5);
      const o = (y * width + x) * channels;
      for (let c = 0; c < 3; c++) out[o + c] = Math.max(0, Math.min(255, Math.round(base[c] + tex)));
      if (channels === 4) out[o + 3] = Math.round(255 * u);
    }
  }
  return out;
}

export async function syntheticJpeg(width: number, height: number, seed = 1, quality = 92): Promise<Buffer> {
  return sharp(syntheticPixels(width, height, seed), { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

export async function syntheticPng(width: number, height: number, seed = 1, channels: 3 | 4 = 3): Promise<Buffer> {
  return sharp(syntheticPixels(width, height, seed, channels), { raw: { width, height, channels } }).png().toBuffer();
}
