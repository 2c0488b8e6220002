/**
 * Byte-level helpers on JPEG and PNG containers: copy the original's metadata segments into a
 * re-encoded file (sharp cannot attach raw ICC/EXIF/XMP/IPTC bytes to an image built from raw
 * pixels), and estimate the original JPEG quality so that re-encoding does not bloat or degrade it.
 */
import { CorruptImageError } from './errors';

export type ImageFormat = 'jpeg' | 'png' | 'gif';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Format from magic bytes only; undefined for anything else (WebP, TIFF, text...). */
export function sniffFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 6) {
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, 6).toString('latin1');
    if (head === 'GIF87a' || head === 'GIF89a') return 'gif';
  }
  return undefined;
}

/**
 * Formats a copy to identify may come in (search queries, crawled images, sightings): the upload
 * formats plus WebP and AVIF, which sites serve to browsers today. Registration stays ImageFormat.
 */
export type QueryFormat = ImageFormat | 'webp' | 'avif';

/** Query format from magic bytes only: RIFF....WEBP, or an ISO-BMFF `ftyp` box with an AVIF brand. */
export function sniffQueryFormat(bytes: Uint8Array): QueryFormat | undefined {
  const upload = sniffFormat(bytes);
  if (upload) return upload;
  if (bytes.length < 16) return undefined;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = buf.toString('latin1', 0, 16);
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'webp';
  if (head.slice(4, 8) !== 'ftyp') return undefined;
  // The major brand, or a compatible brand of the ftyp box ('mif1' files list 'avif' there). HEIC
  // (HEVC) is not one: sharp's libheif decodes AV1 only.
  const boxEnd = Math.min(buf.length, buf.readUInt32BE(0), 256);
  for (let at = 8; at + 4 <= boxEnd; at += at === 8 ? 8 : 4) {
    const brand = buf.toString('latin1', at, at + 4);
    if (brand === 'avif' || brand === 'avis') return 'avif';
  }
  return undefined;
}

interface JpegSegment {
  marker: number;
  start: number;
  end: number;
}

/** Marker segments between SOI and SOS (the header part that carries metadata and tables). */
function jpegHeaderSegments(buf: Buffer): { segments: JpegSegment[]; headerEnd: number } {
  const segments: JpegSegment[] = [];
  let pos = 2;
  while (pos + 4 <= buf.length) {
    if (buf[pos] !== 0xff) throw new CorruptImageError('JPEG marker expected');
    const marker = buf[pos + 1];
    if (marker === 0xff) {
      pos++; // fill byte
      continue;
    }
    if (marker === 0xda) return { segments, headerEnd: pos };
    const len = buf.readUInt16BE(pos + 2);
    const end = pos + 2 + len;
    if (len < 2 || end > buf.length) throw new CorruptImageError('JPEG segment runs past the end');
    segments.push({ marker, start: pos, end });
    pos = end;
  }
  throw new CorruptImageError('JPEG without scan data');
}

function isKeptJpegSegment(buf: Buffer, s: JpegSegment): boolean {
  if (s.marker === 0xe1 || s.marker === 0xed || s.marker === 0xfe) return true; // EXIF/XMP, IPTC, comment
  // APP2 also carries MPF (offsets into the old file): keep only ICC profile chunks.
  return s.marker === 0xe2 && buf.toString('latin1', s.start + 4, s.start + 16) === 'ICC_PROFILE\0';
}

const PNG_KEPT_CHUNKS = new Set(['iCCP', 'sRGB', 'gAMA', 'cHRM', 'cICP', 'pHYs', 'eXIf', 'iTXt', 'tEXt', 'zTXt', 'tIME']);

interface PngChunk {
  type: string;
  start: number;
  end: number;
}

function pngChunks(buf: Buffer): PngChunk[] {
  const chunks: PngChunk[] = [];
  let pos = 8;
  while (pos + 12 <= buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const end = pos + 12 + len;
    if (end > buf.length) throw new CorruptImageError('PNG chunk runs past the end');
    chunks.push({ type, start: pos, end });
    pos = end;
    if (type === 'IEND') break;
  }
  return chunks;
}

/**
 * Returns `encoded` with the metadata of `original` (ICC, EXIF, XMP, IPTC, comments, text chunks)
 * copied in byte for byte. GIF carries no colour or EXIF metadata worth keeping: returned unchanged.
 */
export function transplantMetadata(format: ImageFormat, original: Uint8Array, encoded: Buffer): Buffer {
  const src = Buffer.from(original.buffer, original.byteOffset, original.byteLength);
  if (format === 'jpeg') {
    const kept = jpegHeaderSegments(src).segments.filter((s) => isKeptJpegSegment(src, s));
    if (kept.length === 0) return encoded;
    const out = jpegHeaderSegments(encoded).segments;
    const app0 = out.find((s) => s.marker === 0xe0);
    const insertAt = app0 ? app0.end : 2;
    const dropped = out.filter((s) => isKeptJpegSegment(encoded, s));
    const parts: Buffer[] = [encoded.subarray(0, insertAt), ...kept.map((s) => src.subarray(s.start, s.end))];
    let pos = insertAt;
    for (const s of dropped) {
      if (s.start < pos) continue;
      parts.push(encoded.subarray(pos, s.start));
      pos = s.end;
    }
    parts.push(encoded.subarray(pos));
    return Buffer.concat(parts);
  }
  if (format === 'png') {
    const kept = pngChunks(src).filter((c) => PNG_KEPT_CHUNKS.has(c.type));
    if (kept.length === 0) return encoded;
    const out = pngChunks(encoded);
    const ihdr = out[0];
    if (!ihdr || ihdr.type !== 'IHDR') throw new CorruptImageError('PNG without IHDR');
    const rest = out.slice(1).filter((c) => !PNG_KEPT_CHUNKS.has(c.type));
    return Buffer.concat([
      encoded.subarray(0, ihdr.end),
      ...kept.map((c) => src.subarray(c.start, c.end)),
      ...rest.map((c) => encoded.subarray(c.start, c.end)),
    ]);
  }
  return encoded;
}

// IJG standard luminance table in zigzag order (the order DQT stores it in).
const STD_LUMA_ZIGZAG = [
  16, 11, 12, 14, 12, 10, 16, 14, 13, 14, 18, 17, 16, 19, 24, 40, 26, 24, 22, 22, 24, 49, 35, 37, 29, 40, 58, 51, 61, 60,
  57, 51, 56, 55, 64, 72, 92, 78, 64, 68, 87, 69, 55, 56, 80, 109, 81, 87, 95, 98, 103, 104, 103, 62, 77, 113, 121, 112,
  100, 120, 92, 101, 103, 99,
];

// IJG standard chrominance table in zigzag order.
const STD_CHROMA_ZIGZAG = [
  17, 18, 18, 24, 21, 24, 47, 26, 26, 47, 99, 66, 56, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99,
];

/** The IJG table for `quality` (libjpeg's jpeg_quality_scaling and baseline clamp to 1..255). */
function ijgTable(std: readonly number[], quality: number): number[] {
  const scale = quality < 50 ? Math.floor(5000 / quality) : 200 - quality * 2;
  return std.map((v) => Math.max(1, Math.min(255, Math.floor((v * scale + 50) / 100))));
}

/** Quantisation tables of a JPEG by table id (entries in zigzag order). */
export function jpegQuantTables(bytes: Uint8Array): Map<number, number[]> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tables = new Map<number, number[]>();
  let segments: JpegSegment[];
  try {
    segments = jpegHeaderSegments(buf).segments;
  } catch {
    return tables;
  }
  for (const s of segments.filter((seg) => seg.marker === 0xdb)) {
    let pos = s.start + 4;
    while (pos < s.end) {
      const pq = buf[pos] >> 4;
      const tq = buf[pos] & 15;
      const size = pq ? 128 : 64;
      if (pos + 1 + size > s.end) return tables;
      const t: number[] = [];
      for (let i = 0; i < 64; i++) t.push(pq ? buf.readUInt16BE(pos + 1 + 2 * i) : buf[pos + 1 + i]);
      tables.set(tq, t);
      pos += 1 + size;
    }
  }
  return tables;
}

/**
 * IJG-equivalent quality of a JPEG: the quality whose standard tables are closest (least squares,
 * relative to the step) to the file's luminance and chrominance tables, or undefined without tables.
 * Exact for files written by libjpeg at a given quality; the nearest fit for camera tables.
 */
export function estimateJpegQuality(bytes: Uint8Array): number | undefined {
  const tables = jpegQuantTables(bytes);
  const luma = tables.get(0);
  if (!luma) return undefined;
  const chroma = tables.get(1);
  let best = 0;
  let bestErr = Infinity;
  for (let q = 1; q <= 100; q++) {
    let err = 0;
    const pairs: [number[], number[]][] = [[luma, ijgTable(STD_LUMA_ZIGZAG, q)]];
    if (chroma) pairs.push([chroma, ijgTable(STD_CHROMA_ZIGZAG, q)]);
    for (const [got, ref] of pairs) {
      for (let i = 0; i < 64; i++) {
        const d = Math.log(got[i] / ref[i]);
        err += d * d;
      }
    }
    if (err <= bestErr) {
      bestErr = err;
      best = q;
    }
  }
  return best;
}

/**
 * Chroma subsampling from the JPEG frame header (SOFn component sampling factors), as J:a:b
 * ('4:4:4', '4:2:2', '4:2:0', '4:4:0', '4:1:1'...); undefined for greyscale or an unreadable header.
 * sharp reports every subsampled file as 4:2:0, hence this reader.
 */
export function jpegChromaSubsampling(bytes: Uint8Array): string | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let segments: JpegSegment[];
  try {
    segments = jpegHeaderSegments(buf).segments;
  } catch {
    return undefined;
  }
  // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc).
  const sof = segments.find((s) => s.marker >= 0xc0 && s.marker <= 0xcf && s.marker !== 0xc4 && s.marker !== 0xc8 && s.marker !== 0xcc);
  if (!sof || sof.end - sof.start < 10) return undefined;
  const n = buf[sof.start + 9];
  if (n < 3 || sof.start + 10 + 3 * n > sof.end) return undefined;
  const factor = (i: number): [number, number] => {
    const v = buf[sof.start + 10 + 3 * i + 1];
    return [v >> 4, v & 15];
  };
  const [h0, v0] = factor(0);
  const [h1, v1] = factor(1);
  const [h2, v2] = factor(2);
  if (h1 !== h2 || v1 !== v2 || !h1 || !v1 || h0 % h1 || v0 % v1) return undefined;
  const hs = h0 / h1;
  const vs = v0 / v1;
  const a = 4 / hs;
  return `4:${a}:${vs === 1 ? a : vs === 2 ? 0 : `${a}/${vs}`}`;
}
