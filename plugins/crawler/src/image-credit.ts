import exifr from 'exifr';

/** Metadata fields that carry a credit line, most specific first (IPTC, XMP photoshop/dc, EXIF). */
const CREDIT_FIELDS = ['Credit', 'credit', 'Byline', 'By-line', 'creator', 'Creator', 'Artist', 'CopyrightNotice', 'Copyright', 'rights', 'Rights'];

function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(texts);
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.value === 'string') return [v.value];
    return Object.values(v).flatMap(texts);
  }
  return [];
}

/**
 * The credit line of an image from its IPTC, XMP and EXIF fields (read with exifr): the distinct
 * values of Credit, By-line/Creator/Artist and Copyright, joined with " / "; null when none.
 * A corrupt or hostile metadata block yields null, never an exception.
 */
export async function readCredit(bytes: Buffer): Promise<string | null> {
  let meta: Record<string, unknown> | undefined;
  try {
    meta = await exifr.parse(bytes, { iptc: true, xmp: true, ifd0: {}, exif: false, gps: false, icc: false, jfif: false, ihdr: false, tiff: true, mergeOutput: true, silentErrors: true } as never);
  } catch {
    return null;
  }
  if (!meta) return null;
  const seen = new Map<string, string>();
  for (const field of CREDIT_FIELDS) {
    for (const t of texts(meta[field])) {
      const clean = t.replace(/\s+/g, ' ').trim();
      if (clean && !seen.has(clean.toLowerCase())) seen.set(clean.toLowerCase(), clean);
    }
  }
  const line = [...seen.values()].join(' / ').slice(0, 1000);
  return line || null;
}
