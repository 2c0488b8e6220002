/**
 * Deterministic synthetic photographs for tests and benchmarks (no image files in the repo):
 * a gradient with overlapping ellipses and rectangles of random colours, plus grain, so that
 * every seed gives an unrelated picture with real corners for ORB.
 */
import { getSharp } from './sharp-loader';

/** The tests' seeded generator (an LCG): the same numbers on every machine. */
function seeded(state: number): () => number {
  let s = state;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
}

const png = (data: Buffer, width: number, height: number) => getSharp()(data, { raw: { width, height, channels: 3 } }).png().toBuffer();

export async function syntheticPhoto(seed: number, width = 640, height = 480): Promise<Buffer> {
  const rnd = seeded(seed * 7919 + 1);
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = (x * 200) / width;
      data[i + 1] = (y * 200) / height;
      data[i + 2] = 100;
    }
  }
  for (let k = 0; k < 60; k++) {
    const cx = rnd() * width, cy = rnd() * height, rx = 8 + rnd() * 60, ry = 8 + rnd() * 60;
    const col = [rnd() * 255, rnd() * 255, rnd() * 255];
    const ellipse = rnd() < 0.5;
    for (let y = Math.max(0, Math.floor(cy - ry)); y < Math.min(height, cy + ry); y++) {
      for (let x = Math.max(0, Math.floor(cx - rx)); x < Math.min(width, cx + rx); x++) {
        if (ellipse && ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 > 1) continue;
        const i = (y * width + x) * 3;
        data[i] = col[0]!;
        data[i + 1] = col[1]!;
        data[i + 2] = col[2]!;
      }
    }
  }
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, data[i]! + (rnd() - 0.5) * 30));
  return png(data, width, height);
}

/**
 * A deterministic fractal texture (value noise over 8 octaves per channel, like foliage or rock):
 * unlike syntheticPhoto's clean shapes, its ORB descriptors drift when it is rescaled, as a real
 * photograph's fine texture does. PNG.
 */
export async function syntheticTexture(seed: number, width = 640, height = 480): Promise<Buffer> {
  const rnd = seeded(seed * 104729 + 7);
  const plane = new Float32Array(width * height * 3);
  for (let octave = 0, cell = 256, amplitude = 1; octave < 8; octave++, cell /= 2, amplitude *= 0.85) {
    const gw = Math.ceil(width / cell) + 2, gh = Math.ceil(height / cell) + 2;
    for (let c = 0; c < 3; c++) {
      const grid = Float32Array.from({ length: gw * gh }, () => rnd() - 0.5);
      for (let y = 0; y < height; y++) {
        const gy = y / cell, y0 = Math.floor(gy), fy = gy - y0;
        for (let x = 0; x < width; x++) {
          const gx = x / cell, x0 = Math.floor(gx), fx = gx - x0;
          const a = grid[y0 * gw + x0]! + (grid[y0 * gw + x0 + 1]! - grid[y0 * gw + x0]!) * fx;
          const b = grid[(y0 + 1) * gw + x0]! + (grid[(y0 + 1) * gw + x0 + 1]! - grid[(y0 + 1) * gw + x0]!) * fx;
          plane[(y * width + x) * 3 + c]! += amplitude * (a + (b - a) * fy);
        }
      }
    }
  }
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, 128 + plane[i]! * 90));
  return png(data, width, height);
}
