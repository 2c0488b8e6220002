/**
 * Credit lines ("© Jane Doe / Agence X", "Photo: AFP", "Crédit : ...") as printed next to an
 * image or embedded in its metadata. One piece for every tracking source: the crawler reads
 * them from IPTC/XMP/EXIF, the press analysis from the page's text or OCR.
 */

/** Words that introduce a credit rather than name anyone. */
const LEAD_WORDS = /^(?:©|\(c\)|(?:copyright|photo(?:graph|graphie)?s?|credits?|crédits?|image|foto|by|par|source)(?![\p{L}\p{N}]))\s*[:.\-–—/]?\s*/iu;

/** Lower case, accents and punctuation folded, spaces collapsed: "Crédit : AFP/J. Doe" -> "credit afp j doe". */
export function normaliseCredit(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The credit line without its lead words ("© Photo: Jane Doe" -> "Jane Doe"), trimmed; null when empty. */
export function cleanCreditLine(text: string | null | undefined): string | null {
  if (!text) return null;
  let s = text.replace(/\s+/g, ' ').trim();
  for (let i = 0; i < 4; i++) {
    const next = s.replace(LEAD_WORDS, '').trim();
    if (next === s) break;
    s = next;
  }
  return s.length ? s.slice(0, 500) : null;
}

/** Shorter names than this would match by chance ("ap", "x"). */
export const MIN_CREDIT_NAME_LENGTH = 3;

/**
 * The first of `names` that the credit line names, as whole words ("AFP" is named by
 * "Photo: AFP/John Doe" but not by "AFPX"), or null.
 */
export function creditNames(credit: string, names: Iterable<string>): string | null {
  const text = ` ${normaliseCredit(credit)} `;
  if (text.trim().length === 0) return null;
  for (const name of names) {
    const n = normaliseCredit(name);
    if (n.length >= MIN_CREDIT_NAME_LENGTH && text.includes(` ${n} `)) return name;
  }
  return null;
}
