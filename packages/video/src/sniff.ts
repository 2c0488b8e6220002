/** Video containers recognised by their first bytes (the Content-Type is never trusted). */
const HEIF_BRANDS = new Set(['avif', 'avis', 'heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1']);

export function sniffVideo(bytes: Uint8Array): string | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16));
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
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return 'webm';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'AVI ') return 'avi';
  return null;
}
