/**
 * The video containers accepted, by the name the Video object's `format` gives them: the spec's
 * list (mov, mp4, m4a, 3gp, 3g2, mj2) and the other common containers ffmpeg reads (WebM and
 * Matroska, AVI, Ogg, FLV, ASF/WMV, MPEG program stream). Not MPEG transport streams: the ffprobe
 * we ship crashes on them. See docs/api-decisions.md.
 */
export const VIDEO_FORMATS = ['mp4', 'mov', 'm4a', '3gp', '3g2', 'mj2', 'webm', 'mkv', 'avi', 'ogg', 'flv', 'asf', 'mpeg'] as const;
export type VideoFormat = (typeof VIDEO_FORMATS)[number];

const ASF_GUID = Buffer.from('3026b2758e66cf11a6d900aa0062ce6c', 'hex');

/** Video containers recognised by their first bytes (the Content-Type is never trusted). */
const HEIF_BRANDS = new Set(['avif', 'avis', 'heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1']);

export function sniffVideo(bytes: Uint8Array): VideoFormat | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16));
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64));
  if (b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp') {
    const brand = b.toString('latin1', 8, 12);
    // HEIF still images and image sequences (AVIF, HEIC) share the ISO-BMFF box: not videos.
    if (HEIF_BRANDS.has(brand)) return null;
    if (brand.startsWith('qt')) return 'mov';
    if (brand.startsWith('3g2')) return '3g2';
    if (brand.startsWith('3gp')) return '3gp';
    if (brand.startsWith('mjp2')) return 'mj2';
    if (brand.startsWith('M4A')) return 'm4a';
    return 'mp4';
  }
  // QuickTime files without ftyp start with a moov/mdat/wide/free atom.
  if (b.length >= 8 && ['moov', 'mdat', 'wide', 'free'].includes(b.toString('latin1', 4, 8))) return 'mov';
  // EBML: the header's DocType ("matroska" or "webm", its only text; whatever the writer's size
  // encoding) tells Matroska from WebM, which ffprobe names alike ("matroska,webm").
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return head.includes('matroska', 4, 'latin1') ? 'mkv' : 'webm';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'AVI ') return 'avi';
  if (b.length >= 4 && b.toString('latin1', 0, 4) === 'OggS') return 'ogg';
  if (b.length >= 4 && b.toString('latin1', 0, 3) === 'FLV' && b[3] === 1) return 'flv';
  if (b.length >= 16 && b.subarray(0, 16).equals(ASF_GUID)) return 'asf';
  // MPEG program stream: a pack header.
  if (b.length >= 4 && b.readUInt32BE(0) === 0x000001ba) return 'mpeg';
  return null;
}

/** The sentence a 415 ends with: what is accepted instead. */
export const ACCEPTED_VIDEOS = `Videos are accepted in these containers: ${VIDEO_FORMATS.join(', ')}.`;

/** The Content-Type each container is served with (streaming). */
export const VIDEO_CONTENT_TYPES: Record<VideoFormat, string> = {
  mp4: 'video/mp4', mov: 'video/quicktime', m4a: 'audio/mp4', '3gp': 'video/3gpp', '3g2': 'video/3gpp2', mj2: 'video/mj2',
  webm: 'video/webm', mkv: 'video/x-matroska', avi: 'video/x-msvideo', ogg: 'video/ogg', flv: 'video/x-flv',
  asf: 'video/x-ms-asf', mpeg: 'video/mpeg',
};

/** Content-Types a video body may be sent with (the container is sniffed from the bytes; the type only admits the body). */
export const VIDEO_BODY_TYPES = [...new Set(Object.values(VIDEO_CONTENT_TYPES)), 'video/x-ms-wmv', 'application/ogg'];
