/**
 * Text people read as a label (a media name, an application name, a search name, a description):
 * control characters have no place in one line, and invisible format characters (Unicode category
 * Cf: bidi embeddings, overrides, isolates and marks, zero-width space, BOM, soft hyphen, ...) and
 * C1 controls make it display as something else (`report<U+202E>fdp.exe` shows as
 * `reportexe.pdf`). Kept: ZWNJ/ZWJ (U+200C/D), which scripts and emoji sequences need, and the
 * emoji tag characters (U+E0020-E007F, subdivision flags). Decision in docs/api-decisions.md.
 */
export const SPOOFING_CHARACTER = /(?![\u200C\u200D\u{E0020}-\u{E007F}])[\p{Cf}\u0080-\u009F]/u;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `value` cannot be a one-line label (control or spoofing character), or null. */
export function labelProblem(value: string): string | null {
  const control = CONTROL_CHARACTER.exec(value);
  if (control) return `Control characters (${codePoint(control[0])}) are not allowed.`;
  const spoof = SPOOFING_CHARACTER.exec(value);
  if (spoof) return `Invisible formatting characters (${codePoint(spoof[0])}) are not allowed: they can make a text display as another.`;
  return null;
}

/** The validation error item (code `invalid_character`) for a label that cannot be shown safely, or null. */
export function labelError(field: string, value: string): { field: string; code: string; details: string } | null {
  const problem = labelProblem(value);
  return problem === null ? null : { field, code: 'invalid_character', details: problem };
}
