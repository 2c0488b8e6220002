/** Decoding a query image to a bounded luminance proxy, with ORB features computed on demand. */
import { CorruptImageError, UnsupportedFormatError } from './errors';
import { DEFAULT_MAX_PIXELS, probeImage, type DecodeLimits } from './decode';
import { LUMA_B, LUMA_G, LUMA_R, toGray8 } from './luma';
import { computeOrbFeatures, type OrbFeatures } from './orb';
import { getSharp } from './sharp-loader';
import { sniffFormat } from './container';

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

const isWebp = (b: Buffer) => b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP';

/**
 * Decodes `bytes` to a luma proxy: JPEG, PNG, GIF, and WebP (copies found on the web often are),
 * recognised by their bytes. Nothing else reaches sharp: SVG (an XML renderer), TIFF and the
 * other libvips loaders are attack surface no query needs.
 */
export async function decodeQuery(bytes: Uint8Array, options: PrepareQueryOptions = {}): Promise<QueryImage> {
  const sharp = getSharp();
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!sniffFormat(buf) && !isWebp(buf)) throw new UnsupportedFormatError('not a JPEG, PNG, GIF or WebP image');
  let width: number;
  let height: number;
  try {
    await probeImage(buf, { maxPixels });
  } catch (err) {
    // WebP queries have no JPEG/PNG/GIF header to probe: only their size and decodability matter.
    if (!(err instanceof UnsupportedFormatError) || /animated|CMYK/.test(err.message)) throw err;
  }
  try {
    const meta = await sharp(buf, { limitInputPixels: maxPixels }).metadata();
    width = meta.width ?? 0;
    height = meta.height ?? 0;
  } catch (err) {
    throw new CorruptImageError(`cannot read the query: ${(err as Error).message}`);
  }
  const long = options.maxLongSide ?? 1024;
  const s = Math.min(1, long / Math.max(width, height));
  try {
    const { data, info } = await sharp(buf, { limitInputPixels: maxPixels, failOn: 'error' })
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
