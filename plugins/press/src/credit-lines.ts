/** A run of text on a page: its box in points (top-left origin) and its baseline angle in radians. */
export interface TextLine {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
  angle: number;
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Words that open a credit line in English and French newspapers. */
const CREDIT = /(©|\(c\)\s|copyright|cr[ée]dits?\b|photos?\s*[:©/]|photograph(?:y|ie)?\s*:|foto\s*:|picture\s*:|image\s*:|illustration\s*:|getty images|afp\b|reuters\b)/i;

/** Whether a line of text reads like a credit line. */
export const looksLikeCredit = (text: string) => CREDIT.test(text);

/** Gap between two rectangles (0 when they overlap). */
function gap(a: Rect, b: Rect): number {
  const dx = Math.max(0, a.x - (b.x + b.width), b.x - (a.x + a.width));
  const dy = Math.max(0, a.y - (b.y + b.height), b.y - (a.y + a.height));
  return Math.hypot(dx, dy);
}

/** Runs that continue each other (same angle, same baseline, small gap) joined into lines. */
export function joinRuns(runs: TextLine[]): TextLine[] {
  const out: TextLine[] = [];
  for (const r of runs) {
    if (!r.text.trim()) continue;
    const last = out[out.length - 1];
    const sameLine = last && Math.abs(last.angle - r.angle) < 0.05 && gap(last, r) < Math.max(last.height, r.height) * 1.2 &&
      (Math.abs(r.angle) > 0.1 ? Math.abs(last.x - r.x) < last.width + r.width : Math.abs(last.y + last.height - (r.y + r.height)) < Math.max(2, r.height * 0.4));
    if (sameLine) {
      const x = Math.min(last.x, r.x);
      const y = Math.min(last.y, r.y);
      const right = Math.max(last.x + last.width, r.x + r.width);
      const bottom = Math.max(last.y + last.height, r.y + r.height);
      const spacer = last.text.endsWith(' ') || r.text.startsWith(' ') ? '' : ' ';
      out[out.length - 1] = { text: `${last.text}${spacer}${r.text}`, x, y, width: right - x, height: bottom - y, angle: last.angle };
    } else out.push({ ...r });
  }
  return out;
}

/**
 * The credit line printed along an image: the nearest line within a margin of its box (below,
 * above, beside, rotated along an edge, or printed over it) that reads like a credit.
 */
export function creditNear(box: Rect, runs: TextLine[]): string | null {
  const margin = 14 + 0.06 * Math.max(box.width, box.height);
  let best: { text: string; d: number } | null = null;
  for (const line of joinRuns(runs)) {
    // OCR may read specks before the line as symbols ("& = © Jean Dupont"): they are dropped.
    const text = line.text.replace(/\s+/g, ' ').trim().replace(/^[^\p{L}\p{N}©(]+/u, '');
    if (text.length < 3 || text.length > 200 || !CREDIT.test(text)) continue;
    const d = gap(box, line);
    if (d > margin) continue;
    if (!best || d < best.d) best = { text, d };
  }
  return best?.text ?? null;
}
