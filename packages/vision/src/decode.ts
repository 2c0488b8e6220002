/**
 * Bounded decoding and format-preserving encoding with sharp. The header is read first so that an
 * image announcing too many pixels (a decompression bomb) is refused before any pixel is decoded.
 */
import { estimateJpegQuality, sniffFormat, transplantMetadata, type ImageFormat } from './container';
import { CorruptImageError, ImageTooLargeError, ImageTooSmallError, UnsupportedFormatError } from './errors';
import { getSharp } from './sharp-loader';

export type { ImageFormat } from './container';

/** 40 MP: above the 24 MP the service promises, well under what fits in memory. */
export const DEFAULT_MAX_PIXELS = 40_000_000;
/** Smallest side we accept: below this the watermark band has too few coefficients. */
export const MIN_SIDE = 32;

export interface DecodeLimits {
  maxPixels?: number;
}

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
  /** Channels of the decoded raw pixels: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA. */
  channels: 1 | 2 | 3 | 4;
  depth: 8 | 16;
  hasAlpha: boolean;
  /** Chroma subsampling of a JPEG ('4:2:0', '4:4:4'...), kept when re-encoding. */
  chromaSubsampling?: string;
  /** IJG-equivalent quality of a JPEG, reused when re-encoding. */
  jpegQuality?: number;
}

export interface RawImage {
  /** Interleaved samples, row-major; Uint16Array when depth is 16. */
  data: Uint8Array | Uint16Array;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
  depth: 8 | 16;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Reads the header only; throws the typed errors for unsupported, corrupt, too large or too small. */
export async function probeImage(bytes: Uint8Array, limits: DecodeLimits = {}): Promise<ImageInfo> {
  const format = sniffFormat(bytes);
  if (!format) throw new UnsupportedFormatError('not a JPEG, PNG or GIF image');
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  let meta;
  try {
    meta = await getSharp()(asBuffer(bytes), { limitInputPixels: false, pages: -1 }).metadata();
  } catch (err) {
    throw new CorruptImageError(`cannot read the ${format} header: ${(err as Error).message}`);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (!width || !height) throw new CorruptImageError(`${format} header without dimensions`);
  const pixels = width * height;
  if (pixels > maxPixels) {
    throw new ImageTooLargeError(`${width}x${height} exceeds the limit of ${maxPixels} pixels`, pixels, maxPixels);
  }
  if (Math.min(width, height) < MIN_SIDE) {
    throw new ImageTooSmallError(`${width}x${height}: both sides must be at least ${MIN_SIDE} px`);
  }
  if ((meta.pages ?? 1) > 1) {
    throw new UnsupportedFormatError(`animated ${format} (${meta.pages} frames) is not supported`);
  }
  if (meta.space === 'cmyk') throw new UnsupportedFormatError('CMYK images are not supported');
  const hasAlpha = meta.hasAlpha === true;
  // sharp expands palettes, so a palette image decodes to RGB(A); grey stays one channel.
  const grey = meta.space === 'b-w' || meta.space === 'grey16';
  const channels = ((grey ? 1 : 3) + (hasAlpha ? 1 : 0)) as 1 | 2 | 3 | 4;
  const depth = meta.depth === 'ushort' ? 16 : 8;
  return {
    format,
    width,
    height,
    channels,
    depth,
    hasAlpha,
    chromaSubsampling: format === 'jpeg' ? meta.chromaSubsampling : undefined,
    jpegQuality: format === 'jpeg' ? estimateJpegQuality(bytes) : undefined,
  };
}

/** Decodes to interleaved raw samples, without colour conversion or EXIF auto-orientation. */
export async function decodeRaw(bytes: Uint8Array, info: ImageInfo, limits: DecodeLimits = {}): Promise<RawImage> {
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  try {
    let img = getSharp()(asBuffer(bytes), { limitInputPixels: maxPixels, failOn: 'error' });
    if (info.channels <= 2) img = img.toColourspace(info.depth === 16 ? 'grey16' : 'b-w');
    const { data, info: out } = await img
      .raw({ depth: info.depth === 16 ? 'ushort' : 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (out.width !== info.width || out.height !== info.height || out.channels !== info.channels) {
      throw new CorruptImageError(
        `decoded ${out.width}x${out.height}x${out.channels}, header said ${info.width}x${info.height}x${info.channels}`,
      );
    }
    const samples =
      info.depth === 16
        ? new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2)
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return { data: samples, width: out.width, height: out.height, channels: info.channels, depth: info.depth };
  } catch (err) {
    if (err instanceof CorruptImageError) throw err;
    throw new CorruptImageError(`cannot decode the ${info.format} image: ${(err as Error).message}`);
  }
}

export interface EncodeOptions {
  /** JPEG quality when the original's cannot be estimated. */
  defaultJpegQuality?: number;
}

/**
 * Encodes raw pixels in the original's format with comparable settings, then copies the original's
 * metadata (ICC, EXIF, XMP, IPTC) into the result.
 */
export async function encodeLike(
  raw: RawImage,
  original: Uint8Array,
  info: ImageInfo,
  options: EncodeOptions = {},
): Promise<Buffer> {
  const sharp = getSharp();
  let img = sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
  let encoded: Buffer;
  if (info.format === 'jpeg') {
    // Never below 75 (keeps the mark and the picture), never 100 (files balloon for nothing).
    const quality = Math.max(75, Math.min(98, info.jpegQuality ?? options.defaultJpegQuality ?? 92));
    if (raw.channels <= 2) img = img.toColourspace('b-w');
    encoded = await img
      .jpeg({ quality, chromaSubsampling: info.chromaSubsampling === '4:4:4' ? '4:4:4' : '4:2:0' })
      .toBuffer();
  } else if (info.format === 'png') {
    if (raw.depth === 16) img = img.toColourspace(raw.channels <= 2 ? 'grey16' : 'rgb16');
    else if (raw.channels <= 2) img = img.toColourspace('b-w');
    encoded = await img.png({ compressionLevel: 6, adaptiveFiltering: true, palette: false }).toBuffer();
  } else {
    // GIF is palette-based: quantisation noise is far above the mark, so keep the full 256 colours
    // and no dithering, which would add high-frequency noise on top.
    encoded = await img.gif({ colours: 256, dither: 0, effort: 10 }).toBuffer();
  }
  return transplantMetadata(info.format, original, encoded);
}
