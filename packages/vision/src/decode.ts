/**
 * Bounded decoding and format-preserving encoding with sharp. The header is read first so that an
 * image announcing too many pixels (a decompression bomb) is refused before any pixel is decoded.
 */
import { estimateJpegQuality, jpegChromaSubsampling, sniffFormat, transplantMetadata, type ImageFormat } from './container';
import { CorruptImageError, ImageTooLargeError, ImageTooSmallError, UnsupportedFormatError } from './errors';
import { getSharp } from './sharp-loader';

export type { ImageFormat } from './container';

/** 40 MP: above the 24 MP the service promises, well under what fits in memory. */
export const DEFAULT_MAX_PIXELS = 40_000_000;
/** Smallest side we accept: below this the watermark band has too few coefficients. */
export const MIN_SIDE = 32;

export interface DecodeLimits {
  maxPixels?: number;
  /**
   * Accept a CMYK image (a JPEG made for print), probed and decoded as sRGB through its profile:
   * for registration and identification. Never for embedding: a mark is written in the file's own
   * colour space, and CMYK is not one the watermark supports.
   */
  cmykAsRgb?: boolean;
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
  /** Progressive JPEG or interlaced PNG: the output is written the same way. */
  progressive?: boolean;
  /** Palette (indexed) PNG: written back as a palette PNG. */
  palette?: boolean;
  /** A CMYK file, decoded as sRGB (DecodeLimits.cmykAsRgb). */
  cmyk?: boolean;
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
  const cmyk = meta.space === 'cmyk';
  if (cmyk && !limits.cmykAsRgb) throw new UnsupportedFormatError('CMYK images cannot be watermarked: convert them to RGB first (they can be registered as they are)');
  // A CMYK file's fourth channel is black, not alpha.
  const hasAlpha = meta.hasAlpha === true && !cmyk;
  // sharp expands palettes, so a palette image decodes to RGB(A); grey stays one channel.
  const grey = meta.space === 'b-w' || meta.space === 'grey16';
  const channels = ((grey ? 1 : 3) + (hasAlpha ? 1 : 0)) as 1 | 2 | 3 | 4;
  const depth = meta.depth === 'ushort' && !cmyk ? 16 : 8;
  return {
    format,
    width,
    height,
    channels,
    depth,
    hasAlpha,
    chromaSubsampling: format === 'jpeg' ? jpegChromaSubsampling(bytes) : undefined,
    jpegQuality: format === 'jpeg' ? estimateJpegQuality(bytes) : undefined,
    progressive: meta.isProgressive === true,
    palette: format === 'png' && meta.isPalette === true,
    ...(cmyk ? { cmyk } : {}),
  };
}

/**
 * Decodes to interleaved raw samples in the file's own colour space: the embedded ICC profile is
 * ignored (sharp would otherwise convert to sRGB, or to P3 for 16-bit input) and EXIF orientation
 * is not applied, so the samples are the stored ones and the profile and tag still describe them.
 */
export async function decodeRaw(bytes: Uint8Array, info: ImageInfo, limits: DecodeLimits = {}, shrink?: 2 | 4 | 8): Promise<RawImage> {
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  // A shrunk decode (8-bit JPEG only) is libjpeg's scaled inverse DCT at exactly 1/shrink (rounded up):
  // the codec skips most of its work and libvips resamples nothing after it.
  if (shrink && (info.format !== 'jpeg' || info.depth !== 8)) throw new Error('decodeRaw: a shrunk decode is for 8-bit JPEG only');
  const width = shrink ? Math.ceil(info.width / shrink) : info.width;
  const height = shrink ? Math.ceil(info.height / shrink) : info.height;
  try {
    // CMYK goes to sRGB through its embedded profile (libvips' own CMYK profile without one).
    let img = getSharp()(asBuffer(bytes), { limitInputPixels: maxPixels, failOn: 'error', ignoreIcc: !info.cmyk });
    if (shrink) img = img.resize(width, height, { fit: 'fill', kernel: 'nearest', fastShrinkOnLoad: true });
    // The stored interpretation, so that sharp converts nothing (its default output space is 8-bit sRGB).
    img = img.toColourspace(info.channels <= 2 ? (info.depth === 16 ? 'grey16' : 'b-w') : info.depth === 16 ? 'rgb16' : 'srgb');
    const { data, info: out } = await img
      .raw({ depth: info.depth === 16 ? 'ushort' : 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (out.width !== width || out.height !== height || out.channels !== info.channels) {
      throw new CorruptImageError(`decoded ${out.width}x${out.height}x${out.channels}, ${shrink ? `expected at 1/${shrink}` : 'header said'} ${width}x${height}x${info.channels}`);
    }
    const samples =
      info.depth === 16
        ? new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2)
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return { data: samples, width, height, channels: info.channels, depth: info.depth };
  } catch (err) {
    if (err instanceof CorruptImageError) throw err;
    throw new CorruptImageError(`cannot decode the ${info.format} image: ${(err as Error).message}`);
  }
}

export interface JpegEncodeSettings {
  quality: number;
  chromaSubsampling: '4:2:0' | '4:4:4';
  progressive: boolean;
  optimiseCoding: boolean;
}

export interface EncodeOptions {
  /** JPEG quality when the original's cannot be estimated. */
  defaultJpegQuality?: number;
  /** Explicit JPEG settings (one rung of jpegLadder), instead of jpegSettings(info). */
  jpeg?: JpegEncodeSettings;
}

/**
 * Largest image written with optimised Huffman tables or progressive. Either makes libjpeg keep every
 * coefficient of the image in memory (2 bytes a sample: 108 MB at 18 MP 4:4:4) and code it twice:
 * optimising costs +40 % encode time for files about 3 % smaller; progressive coding (which always
 * optimises) 5-6x a sequential encode at 16.7 MP, and 3x its decode. Above this size a JPEG is written
 * sequential with the standard tables, as ImageMagick re-encodes one; `jpegtran -progressive` turns it
 * progressive again without changing a pixel.
 */
export const WHOLE_IMAGE_CODING_MAX_PIXELS = 4_000_000;

/** The lowest JPEG quality we write: below it the re-encoding noise would exceed the mark itself. */
export const MIN_JPEG_QUALITY = 50;

/**
 * JPEG settings that reproduce the original's: its quality (from its quantisation tables), its
 * chroma subsampling and progressive mode (up to WHOLE_IMAGE_CODING_MAX_PIXELS). libjpeg through
 * sharp writes 4:2:0 or 4:4:4 only, so a 4:2:2, 4:4:0 or 4:1:1 original is written 4:4:4: never
 * coarser chroma than the original had.
 */
export function jpegSettings(
  info: ImageInfo,
  options: EncodeOptions = {},
): JpegEncodeSettings {
  const quality = Math.max(MIN_JPEG_QUALITY, Math.min(100, info.jpegQuality ?? options.defaultJpegQuality ?? 92));
  const wholeImageCoding = info.width * info.height <= WHOLE_IMAGE_CODING_MAX_PIXELS;
  return {
    quality,
    chromaSubsampling: info.chromaSubsampling === '4:2:0' ? '4:2:0' : '4:4:4',
    progressive: info.progressive === true && wholeImageCoding,
    optimiseCoding: wholeImageCoding,
  };
}

/**
 * JPEG settings from the original's (first rung) to the most faithful we can write: a higher
 * quality, then no chroma subsampling. Re-encoding is not idempotent (decoded pixels are rounded,
 * camera tables differ from libjpeg's, chroma is re-sampled), so a file whose re-encoding alone
 * costs a visible share of the PSNR budget climbs the ladder (see embed in @filigrane/watermark).
 */
export function jpegLadder(info: ImageInfo, options: EncodeOptions = {}): JpegEncodeSettings[] {
  const base = jpegSettings(info, options);
  const mid = Math.min(100, base.quality + Math.ceil((100 - base.quality) / 2));
  const rungs = [base, { ...base, quality: mid }, { ...base, quality: mid, chromaSubsampling: '4:4:4' as const }, { ...base, quality: 100, chromaSubsampling: '4:4:4' as const }];
  return rungs.filter((r, i) => rungs.findIndex((o) => o.quality === r.quality && o.chromaSubsampling === r.chromaSubsampling) === i);
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
    if (raw.channels <= 2) img = img.toColourspace('b-w');
    encoded = await img.jpeg(options.jpeg ?? jpegSettings(info, options)).toBuffer();
  } else if (info.format === 'png') {
    if (raw.depth === 16) img = img.toColourspace(raw.channels <= 2 ? 'grey16' : 'rgb16');
    else if (raw.channels <= 2) img = img.toColourspace('b-w');
    const progressive = info.progressive === true;
    encoded = await img
      .png(
        info.palette && raw.depth === 8
          ? // Exact palette when the marked image still fits in 256 colours; otherwise the closest
            // 256, undithered (dithering would add noise far above the mark).
            { palette: true, colours: 256, quality: 100, dither: 0, effort: 10, compressionLevel: 9, progressive }
          : { compressionLevel: 6, adaptiveFiltering: true, palette: false, progressive },
      )
      .toBuffer();
  } else {
    // GIF is palette-based: quantisation noise is far above the mark, so keep the full 256 colours
    // and no dithering, which would add high-frequency noise on top.
    encoded = await img.gif({ colours: 256, dither: 0, effort: 10 }).toBuffer();
  }
  return transplantMetadata(info.format, original, encoded);
}

/**
 * PSNR in dB over the colour channels (alpha excluded) of two images of the same size and layout,
 * on the 8-bit scale (16-bit samples divided by 257), as ImageMagick's `compare -metric PSNR` does.
 */
/** `sse8` sums the squared colour differences of two 8-bit RGB(A) arrays (a faster kernel may be passed in). */
export function psnrOf(a: RawImage, b: RawImage, sse8: (x: Uint8Array, y: Uint8Array, channels: number) => number = sseRgb8): number {
  if (a.width !== b.width || a.height !== b.height || a.channels !== b.channels || a.data.length !== b.data.length) {
    throw new Error(`psnrOf: ${a.width}x${a.height}x${a.channels} vs ${b.width}x${b.height}x${b.channels}`);
  }
  const channels = a.channels;
  if (a.depth === 8 && b.depth === 8 && channels >= 3) {
    // The usual case on monomorphic byte arrays (the loop below sees both array types and runs ~4x slower).
    const mse = sse8(a.data as Uint8Array, b.data as Uint8Array, channels) / (a.width * a.height * 3);
    return mse > 0 ? 10 * Math.log10((255 * 255) / mse) : Infinity;
  }
  const colour = channels >= 3 ? 3 : 1;
  const x = a.data;
  const y = b.data;
  let sse = 0;
  for (let p = 0; p < x.length; p += channels) {
    for (let c = 0; c < colour; c++) {
      const d = x[p + c] - y[p + c];
      sse += d * d;
    }
  }
  const scale = a.depth === 16 ? 257 : 1;
  const mse = sse / (scale * scale) / (a.width * a.height * colour);
  return mse > 0 ? 10 * Math.log10((255 * 255) / mse) : Infinity;
}

/** Sum of squared differences of the colour channels of two 8-bit RGB(A) sample arrays. */
export function sseRgb8(x: Uint8Array, y: Uint8Array, channels: number): number {
  let sse = 0;
  for (let p = 0; p < x.length; p += channels) {
    const d0 = x[p] - y[p];
    const d1 = x[p + 1] - y[p + 1];
    const d2 = x[p + 2] - y[p + 2];
    sse += d0 * d0 + d1 * d1 + d2 * d2;
  }
  return sse;
}
