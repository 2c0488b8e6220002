/**
 * The 15 attacks of research/watermark.md section 4.2, on encoded image bytes. Lossless steps are
 * saved as PNG so that only the attack itself degrades the mark; JPEG steps use the stated quality.
 */
import sharp from 'sharp';
import { loadOpenCv, withMats } from '@filigrane/vision';

export type Attack = (img: Buffer) => Promise<Buffer>;

async function rgb(img: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(img).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const png = (s: sharp.Sharp): Promise<Buffer> => s.png({ compressionLevel: 1 }).toBuffer();
const jpeg = (s: sharp.Sharp, quality: number): Promise<Buffer> => s.jpeg({ quality }).toBuffer();

/** OpenCV warp of an RGB image by a 2x3 (affine) or 3x3 (perspective) matrix, same output size. */
async function warp(img: Buffer, matrix: number[], border: 'reflect' | 'black'): Promise<Buffer> {
  const { cv } = await loadOpenCv();
  const { data, width, height } = await rgb(img);
  const out = withMats((track) => {
    const src = track(new cv.Mat(height, width, cv.CV_8UC3));
    src.data.set(data);
    const dst = track(new cv.Mat());
    const m = track(cv.matFromArray(matrix.length === 6 ? 2 : 3, 3, cv.CV_64F, matrix));
    const size = new cv.Size(width, height);
    const mode = border === 'reflect' ? cv.BORDER_REFLECT : cv.BORDER_CONSTANT;
    if (matrix.length === 6) cv.warpAffine(src, dst, m, size, cv.INTER_LINEAR, mode, new cv.Scalar(0, 0, 0, 0));
    else cv.warpPerspective(src, dst, m, size, cv.INTER_LINEAR, mode, new cv.Scalar(0, 0, 0, 0));
    return Buffer.from(dst.data);
  });
  return png(sharp(out, { raw: { width, height, channels: 3 } }));
}

async function size(img: Buffer): Promise<{ width: number; height: number }> {
  const m = await sharp(img).metadata();
  return { width: m.width!, height: m.height! };
}

/** Rotation by `deg` degrees and scale `s` about the centre, as a 2x3 matrix (cv.getRotationMatrix2D). */
function rotation(width: number, height: number, deg: number, s: number): number[] {
  const a = (deg * Math.PI) / 180;
  const alpha = s * Math.cos(a);
  const beta = s * Math.sin(a);
  const cx = width / 2;
  const cy = height / 2;
  return [alpha, beta, (1 - alpha) * cx - beta * cy, -beta, alpha, beta * cx + (1 - alpha) * cy];
}

/** Homography mapping the image corners to corners moved inwards/outwards by 2-8 % (seeded). */
function perspective(width: number, height: number, seed: number): number[] {
  let s = seed;
  const rnd = (): number => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296);
  const src = [0, 0, width, 0, width, height, 0, height];
  const dst = src.map((v, i) => v + (i % 2 === 0 ? width : height) * (0.02 + 0.06 * rnd()) * (rnd() < 0.5 ? -1 : 1));
  // Solve the 8x8 system for the homography (h33 = 1).
  const A: number[][] = [];
  const b: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y, u, v] = [src[2 * i], src[2 * i + 1], dst[2 * i], dst[2 * i + 1]];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    [b[c], b[p]] = [b[p], b[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < 8; k++) A[r][k] -= f * A[c][k];
      b[r] -= f * b[c];
    }
  }
  return [...b.map((v, i) => v / A[i][i]), 1];
}

async function gammaLut(img: Buffer, gamma: number): Promise<sharp.Sharp> {
  const { data, width, height } = await rgb(img);
  const lut = Uint8Array.from({ length: 256 }, (_, v) => Math.round(255 * Math.pow(v / 255, 1 / gamma)));
  for (let i = 0; i < data.length; i++) data[i] = lut[data[i]];
  return sharp(data, { raw: { width, height, channels: 3 } });
}

export const ATTACKS: Record<string, Attack> = {
  none: async (img) => img,
  jpeg50: (img) => jpeg(sharp(img), 50),
  jpeg30: (img) => jpeg(sharp(img), 30),
  resize50: async (img) => {
    const { width } = await size(img);
    return png(sharp(img).resize({ width: Math.round(width / 2), kernel: 'lanczos3' }));
  },
  'resize50+jpeg70': async (img) => {
    const { width } = await size(img);
    return jpeg(sharp(img).resize({ width: Math.round(width / 2), kernel: 'lanczos3' }), 70);
  },
  crop50: async (img) => {
    const { width, height } = await size(img);
    const w = Math.round(width * 0.707);
    const h = Math.round(height * 0.707);
    return png(sharp(img).extract({ left: Math.round((width - w) * 0.7), top: Math.round((height - h) * 0.3), width: w, height: h }));
  },
  'crop25+jpeg75': async (img) => {
    const { width, height } = await size(img);
    const w = Math.round(width / 2);
    const h = Math.round(height / 2);
    return jpeg(sharp(img).extract({ left: width - w, top: height - h, width: w, height: h }), 75);
  },
  'rot5+scale0.8': async (img) => {
    const { width, height } = await size(img);
    return warp(img, rotation(width, height, 5, 0.8), 'reflect');
  },
  'rot15+jpeg70': async (img) => jpeg(sharp(img).rotate(15, { background: '#000000' }), 70),
  perspective: async (img) => {
    const { width, height } = await size(img);
    return warp(img, perspective(width, height, width * 31 + height), 'black');
  },
  'contrast1.3-25': (img) => png(sharp(img).linear(1.3, -25)),
  'brightness1.2': (img) => png(sharp(img).modulate({ brightness: 1.2 })),
  'gamma2.2+sat1.5': async (img) => png((await gammaLut(img, 2.2)).modulate({ saturation: 1.5 })),
  blur1: (img) => png(sharp(img).blur(1)),
  combo_web: async (img) => {
    const { width, height } = await size(img);
    const w = Math.round(width * 0.8);
    const h = Math.round(height * 0.75);
    const cropped = await png(sharp(img).extract({ left: Math.round((width - w) / 2), top: Math.round((height - h) / 3), width: w, height: h }));
    return jpeg(
      sharp(cropped).resize({ width: Math.round(w * 0.6), kernel: 'lanczos3' }).modulate({ brightness: 1.1, saturation: 1.2 }),
      60,
    );
  },
};

/** Gaussian noise of `sigma` grey levels on every channel (seeded Box-Muller: the same run twice). */
async function noise(img: Buffer, sigma: number, seed: number): Promise<sharp.Sharp> {
  const { data, width, height } = await rgb(img);
  let s = seed >>> 0 || 1;
  const uniform = (): number => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) + 1) / 4294967297;
  for (let i = 0; i < data.length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const a = 2 * Math.PI * uniform();
    data[i] = Math.max(0, Math.min(255, Math.round(data[i]! + sigma * r * Math.cos(a))));
    if (i + 1 < data.length) data[i + 1] = Math.max(0, Math.min(255, Math.round(data[i + 1]! + sigma * r * Math.sin(a))));
  }
  return sharp(data, { raw: { width, height, channels: 3 } });
}

/**
 * Where a person cropping to `area` of a photo puts the window: on its subject. Of a 9 x 9 grid of
 * positions, the window with the most detail (sum of absolute luminance gradients on a 256-px
 * preview). A crop of blank sky or a smooth gradient identifies nothing, for any method.
 */
async function subjectWindow(img: Buffer, area: number): Promise<{ fx: number; fy: number }> {
  const { data, info } = await sharp(img).greyscale().resize({ width: 256, height: 256, fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = info;
  const grad = new Float64Array((w + 1) * (h + 1)); // integral image of |dx| + |dy|
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = data[y * w + x]!;
      const g = (x + 1 < w ? Math.abs(data[y * w + x + 1]! - v) : 0) + (y + 1 < h ? Math.abs(data[(y + 1) * w + x]! - v) : 0);
      grad[(y + 1) * (w + 1) + x + 1] = g + grad[y * (w + 1) + x + 1]! + grad[(y + 1) * (w + 1) + x]! - grad[y * (w + 1) + x]!;
    }
  }
  const cw = Math.round(w * Math.sqrt(area));
  const ch = Math.round(h * Math.sqrt(area));
  let best = { fx: 0.5, fy: 0.5, sum: -1 };
  for (let i = 0; i <= 8; i++) {
    for (let j = 0; j <= 8; j++) {
      const x0 = Math.round(((w - cw) * i) / 8);
      const y0 = Math.round(((h - ch) * j) / 8);
      const at = (x: number, y: number) => grad[y * (w + 1) + x]!;
      const sum = at(x0 + cw, y0 + ch) - at(x0, y0 + ch) - at(x0 + cw, y0) + at(x0, y0);
      if (sum > best.sum) best = { fx: i / 8, fy: j / 8, sum };
    }
  }
  return best;
}

/** Keeps `area` of the picture (same aspect): at (fx, fy) of the free range, or on its subject. */
async function cropArea(img: Buffer, area: number, fx?: number, fy?: number): Promise<sharp.Sharp> {
  const { width, height } = await size(img);
  const w = Math.round(width * Math.sqrt(area));
  const h = Math.round(height * Math.sqrt(area));
  const at = fx === undefined || fy === undefined ? await subjectWindow(img, area) : { fx, fy };
  return sharp(img).extract({ left: Math.round((width - w) * at.fx), top: Math.round((height - h) * at.fy), width: w, height: h });
}

/** Black caption text on white, as an SVG rendered by sharp (librsvg + fontconfig's default sans). */
function captionBand(width: number, height: number, text: string): Buffer {
  const size = Math.round(height * 0.55);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>` +
      `<text x="50%" y="68%" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${size}" fill="black">${text}</text></svg>`,
  );
}

export interface CopyClass {
  attack: Attack;
  /** The spec's `transforms` a search for this class needs (the least: `scale` unless stated). */
  transforms: ('scale' | 'affine' | 'perspective')[];
}

/**
 * Copies as the modern web makes them (issue 18): each class names the least `transforms` its
 * search needs; only the 45-degree rotation needs `affine`.
 */
export const COPY_CLASSES: Record<string, CopyClass> = {
  // Social network: longest side 1080, metadata stripped (sharp writes none), JPEG twice at 80 then 72.
  social: {
    transforms: ['scale'],
    attack: async (img) => {
      const once = await jpeg(sharp(img).resize({ width: 1080, height: 1080, fit: 'inside', withoutEnlargement: true, kernel: 'lanczos3' }), 80);
      return jpeg(sharp(once), 72);
    },
  },
  thumb320: { transforms: ['scale'], attack: (img) => jpeg(sharp(img).resize({ width: 320, height: 320, fit: 'inside', kernel: 'lanczos3' }), 85) },
  jpeg20: { transforms: ['scale'], attack: (img) => jpeg(sharp(img), 20) },
  rot45: { transforms: ['scale', 'affine'], attack: (img) => jpeg(sharp(img).rotate(45, { background: '#ffffff' }), 90) },
  greyscale: { transforms: ['scale'], attack: (img) => jpeg(sharp(img).greyscale(), 85) },
  // Print and scan: a soft print (blur), the scanner's gamma and sensor noise, scanned at 75 %.
  'print-scan': {
    transforms: ['scale'],
    attack: async (img) => {
      const { width } = await size(img);
      const printed = await png(sharp(img).blur(1.5).gamma(1.6, 2.2));
      const scanned = await png(await noise(printed, 4, width));
      return jpeg(sharp(scanned).resize({ width: Math.round(width * 0.75), kernel: 'lanczos3' }), 90);
    },
  },
  // A web page showing the photo at under half its size (0.4), among text, saved as a PNG screenshot.
  screenshot: {
    transforms: ['scale'],
    attack: async (img) => {
      const { width, height } = await size(img);
      const w = Math.round(width * 0.4);
      const h = Math.round(height * 0.4);
      const shown = await sharp(img).resize({ width: w, height: h, fit: 'fill', kernel: 'cubic' }).png().toBuffer();
      const pageW = w + 420;
      const pageH = h + 260;
      const text = Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${pageW}" height="${pageH}"><rect width="100%" height="100%" fill="#fafafa"/>` +
          `<rect width="100%" height="56" fill="#1d3557"/><text x="24" y="38" font-family="sans-serif" font-size="24" fill="white">The Daily Example</text>` +
          Array.from({ length: 12 }, (_, i) => `<rect x="${w + 60}" y="${110 + i * 28}" width="${300 - (i % 3) * 40}" height="12" fill="#999"/>`).join('') +
          `<text x="40" y="${h + 140}" font-family="serif" font-size="18" fill="#333">Photo caption and credit line under the picture</text></svg>`,
      );
      return sharp(text).composite([{ input: shown, left: 40, top: 96 }]).png().toBuffer();
    },
  },
  captions: {
    transforms: ['scale'],
    attack: async (img) => {
      const { width, height } = await size(img);
      const band = Math.round(height * 0.14);
      const base = await sharp(img).extend({ top: band, bottom: band, background: '#ffffff' }).png().toBuffer();
      return jpeg(
        sharp(base).composite([
          { input: captionBand(width, band, 'WHEN THE BENCHMARK'), left: 0, top: 0 },
          { input: captionBand(width, band, 'FINALLY PASSES'), left: 0, top: band + height },
        ]),
        85,
      );
    },
  },
  webp: { transforms: ['scale'], attack: (img) => sharp(img).webp({ quality: 75 }).toBuffer() },
  avif: { transforms: ['scale'], attack: (img) => sharp(img).avif({ quality: 50, effort: 2 }).toBuffer() },
  mirror: { transforms: ['scale'], attack: (img) => jpeg(sharp(img).flop(), 90) },
  // A tenth of the picture, on its subject (see subjectWindow).
  crop10: { transforms: ['scale'], attack: async (img) => jpeg(await cropArea(img, 0.1), 90) },
  // A third of the picture (on its subject), graded: gamma 1.4, saturation x1.3, unsharp mask, as a photo editor would.
  'graded-crop33': {
    transforms: ['scale'],
    attack: async (img) => {
      const cropped = await png(await cropArea(img, 1 / 3));
      return jpeg((await gammaLut(cropped, 1.4)).modulate({ saturation: 1.3 }).sharpen({ sigma: 1.2, m1: 1, m2: 2 }), 90);
    },
  },
};

/** A crop keeping `area` of the picture, as PNG (the small-crop floor study): on its subject unless placed. */
export const cropOf = async (img: Buffer, area: number, fx?: number, fy?: number): Promise<Buffer> => png(await cropArea(img, area, fx, fy));
