/** Decoding a query image to a bounded luminance proxy, with ORB features computed on demand. */
import { CorruptImageError, ImageTooLargeError, ImageTooSmallError, UnsupportedFormatError } from './errors';
import { DEFAULT_MAX_PIXELS, MIN_SIDE, type DecodeLimits } from './decode';
import { LUMA_B, LUMA_G, LUMA_R, toGray8 } from './luma';
import { computeOrbFeatures, type OrbFeatures } from './orb';
import { getSharp } from './sharp-loader';
import { sniffQueryFormat, type QueryFormat } from './container';

export interface QueryImage {
  /** Luminance proxy, 0..255, row-major. */
  luma: Float32Array;
  width: number;
  height: number;
  /** Size of the decoded query before the proxy downscale. */
  originalWidth: number;
  originalHeight: number;
}

export interface PrepareQueryOptions extends DecodeLimits {
  /** Long side of the analysis proxy (default 1024). */
  maxLongSide?: number;
}

export interface QueryInfo {
  format: QueryFormat;
  width: number;
  height: number;
  /** Frames of an animated GIF or WebP (only the first is read), else 1. */
  pages: number;
}

/**
 * Reads the header of a copy to identify: JPEG, PNG, GIF, WebP or AVIF, recognised by their bytes.
 * Nothing else reaches sharp: SVG (an XML renderer), TIFF, HEIC and the other libvips loaders are
 * attack surface no query needs. An animated GIF or WebP is accepted (its first frame is read);
 * the frame size is checked against the pixel limit before anything is decoded.
 */
export async function probeQuery(bytes: Uint8Array, limits: DecodeLimits = {}): Promise<QueryInfo> {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = sniffQueryFormat(buf);
  if (!format) throw new UnsupportedFormatError('not a JPEG, PNG, GIF, WebP or AVIF image');
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  let meta;
  try {
    meta = await getSharp()(buf, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new CorruptImageError(`cannot read the ${format} header: ${(err as Error).message}`);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (!width || !height) throw new CorruptImageError(`${format} header without dimensions`);
  if (width * height > maxPixels) {
    throw new ImageTooLargeError(`${width}x${height} exceeds the limit of ${maxPixels} pixels`, width * height, maxPixels);
  }
  if (Math.min(width, height) < MIN_SIDE) throw new ImageTooSmallError(`${width}x${height}: both sides must be at least ${MIN_SIDE} px`);
  return { format, width, height, pages: meta.pages ?? 1 };
}

/** Decodes `bytes` (any QueryFormat; the first frame of an animation) to a luma proxy. */
export async function decodeQuery(bytes: Uint8Array, options: PrepareQueryOptions = {}): Promise<QueryImage> {
  const sharp = getSharp();
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { width, height } = await probeQuery(buf, { maxPixels });
  const long = options.maxLongSide ?? 1024;
  const s = Math.min(1, long / Math.max(width, height));
  try {
    // pages: 1 is sharp's default: an animation decodes as its first frame only.
    const { data, info } = await sharp(buf, { limitInputPixels: maxPixels, failOn: 'error', pages: 1 })
      .resize({ width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)), fit: 'fill', kernel: 'lanczos3' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const n = info.width * info.height;
    const luma = new Float32Array(n);
    for (let i = 0, p = 0; i < n; i++, p += 3) luma[i] = LUMA_R * data[p] + LUMA_G * data[p + 1] + LUMA_B * data[p + 2];
    return { luma, width: info.width, height: info.height, originalWidth: width, originalHeight: height };
  } catch (err) {
    throw new CorruptImageError(`cannot decode the query: ${(err as Error).message}`);
  }
}

/** ORB features of a query, computed once and shared across all the candidates it is tested against. */
export class PreparedQuery {
  private features?: Promise<OrbFeatures>;

  constructor(readonly image: QueryImage) {}

  orb(): Promise<OrbFeatures> {
    this.features ??= computeOrbFeatures(toGray8(this.image.luma), this.image.width, this.image.height);
    return this.features;
  }
}

export async function prepareQuery(bytes: Uint8Array, options: PrepareQueryOptions = {}): Promise<PreparedQuery> {
  return new PreparedQuery(await decodeQuery(bytes, options));
}
