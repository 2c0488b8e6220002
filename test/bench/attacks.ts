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
