/**
 * Key-independent feature extraction on the canonical grid: the band coefficients of the
 * host-subtracted residual (informed) or of the whitened mean-removed query (blind). Nothing here
 * may depend on the key: that is what keeps the p-value exact.
 */
import { bandColumns } from './band';
import { dct2d } from './dct';

const TONE_BINS = 64;
const LUT_STEP = 4;

/**
 * Photometric fit of the warped query Y to the reduced original O: the mean of Y in 64 bins of O,
 * interpolated linearly between bin centroids. Absorbs brightness, contrast, gamma and clipping.
 */
export function toneCurve(original: Float32Array, warped: Float32Array, mask: Uint8Array): Float32Array {
  const sumO = new Float64Array(TONE_BINS);
  const sumY = new Float64Array(TONE_BINS);
  const count = new Float64Array(TONE_BINS);
  for (let i = 0; i < original.length; i++) {
    if (!mask[i]) continue;
    const b = Math.min(TONE_BINS - 1, Math.max(0, Math.floor((original[i] * TONE_BINS) / 256)));
    sumO[b] += original[i];
    sumY[b] += warped[i];
    count[b]++;
  }
  const xs: number[] = [];
  const ys: number[] = [];
  for (let b = 0; b < TONE_BINS; b++) {
    if (count[b] > 0) {
      xs.push(sumO[b] / count[b]);
      ys.push(sumY[b] / count[b]);
    }
  }
  const lut = new Float32Array(256 * LUT_STEP + 1);
  if (xs.length === 0) return lut;
  let k = 0;
  for (let i = 0; i < lut.length; i++) {
    const o = i / LUT_STEP;
    while (k < xs.length - 1 && xs[k + 1] < o) k++;
    if (o <= xs[0]) lut[i] = ys[0];
    else if (k >= xs.length - 1) lut[i] = ys[xs.length - 1];
    else lut[i] = ys[k] + ((o - xs[k]) * (ys[k + 1] - ys[k])) / (xs[k + 1] - xs[k]);
  }
  return lut;
}

function bandOf(plane: Float64Array, band: Int32Array): Float64Array {
  const x = new Float64Array(band.length);
  for (let i = 0; i < band.length; i++) x[i] = plane[band[i]];
  return x;
}

/** Informed features: DCT band of mask * (Y - T(O)). */
export function informedFeatures(
  original: Float32Array,
  warped: Float32Array,
  mask: Uint8Array,
  w: number,
  h: number,
  band: Int32Array,
  high: number,
): Float64Array {
  const lut = toneCurve(original, warped, mask);
  const r = new Float64Array(w * h);
  for (let i = 0; i < r.length; i++) {
    if (mask[i]) r[i] = warped[i] - lut[Math.round(Math.min(255, Math.max(0, original[i])) * LUT_STEP)];
  }
  dct2d(r, w, h, bandColumns(w, high));
  return bandOf(r, band);
}

const WHITEN_RADIUS = 4;

/**
 * Blind features: DCT band of mask * (Y - mean), each coefficient divided by the squared mean
 * magnitude of its (2k+1)^2 spectral neighbourhood (an estimate of the host variance there): the
 * host is the noise of a blind detector and its spectrum falls steeply with frequency, so this
 * x / sigma^2 weighting (matched filter for a flat-spectrum mark in coloured noise) beat x / sigma.
 */
export function blindFeatures(warped: Float32Array, mask: Uint8Array, w: number, h: number, band: Int32Array, high: number): Float64Array {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < warped.length; i++) {
    if (mask[i]) {
      sum += warped[i];
      n++;
    }
  }
  const mean = n > 0 ? sum / n : 0;
  const r = new Float64Array(w * h);
  for (let i = 0; i < r.length; i++) if (mask[i]) r[i] = warped[i] - mean;
  const cols = Math.min(w, bandColumns(w, high) + WHITEN_RADIUS + 1);
  dct2d(r, w, h, cols);
  const rows = Math.min(h, Math.ceil(2 * h * high) + WHITEN_RADIUS + 2);
  // Summed-area table of |X| over the top-left cols x rows block of the spectrum.
  const sat = new Float64Array((cols + 1) * (rows + 1));
  for (let y = 0; y < rows; y++) {
    let acc = 0;
    for (let x = 0; x < cols; x++) {
      acc += Math.abs(r[y * w + x]);
      sat[(y + 1) * (cols + 1) + x + 1] = sat[y * (cols + 1) + x + 1] + acc;
    }
  }
  const x = new Float64Array(band.length);
  for (let i = 0; i < band.length; i++) {
    const ky = Math.floor(band[i] / w);
    const kx = band[i] - ky * w;
    const x0 = Math.max(0, kx - WHITEN_RADIUS), x1 = Math.min(cols, kx + WHITEN_RADIUS + 1);
    const y0 = Math.max(0, ky - WHITEN_RADIUS), y1 = Math.min(rows, ky + WHITEN_RADIUS + 1);
    const s = sat[y1 * (cols + 1) + x1] - sat[y0 * (cols + 1) + x1] - sat[y1 * (cols + 1) + x0] + sat[y0 * (cols + 1) + x0];
    const local = s / ((x1 - x0) * (y1 - y0));
    x[i] = local > 1e-9 ? r[band[i]] / (local * local) : 0;
  }
  return x;
}
