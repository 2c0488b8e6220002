/**
 * CSV for list endpoints (format=csv): one row per object; nested objects are flattened to
 * dotted columns, lists of plain values joined in one cell and lists of objects dropped, as the spec
 * says ("flattened or absent").
 */
export function toCsv(rows: Record<string, unknown>[]): string {
  const flat = rows.map((r) => flattenObject(r));
  const columns: string[] = [];
  for (const row of flat) for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k);
  let text = csvLine(columns);
  for (const row of flat) text += csvLine(columns.map((c) => row[c]));
  return text;
}

/**
 * One CSV record (CRLF-terminated) of cells under csvCell's rule. Every CSV the service writes
 * (list answers, exports, crawl logs) is made of these lines, so one formula rule covers them all.
 */
export function csvLine(cells: readonly unknown[], eol = '\r\n'): string {
  return cells.map(csvCell).join(',') + eol;
}

/**
 * A header line then one line per row, streamed (rows of cells in the columns' order). `eol`: the
 * record separator of files whose format predates this helper (the crawl logs use LF).
 */
export async function* csvRecords(columns: readonly string[], rows: AsyncIterable<readonly unknown[]>, eol = '\r\n'): AsyncGenerator<string> {
  yield csvLine(columns, eol);
  for await (const row of rows) yield csvLine(row, eol);
}

/** Nested objects as dotted keys (`site.domain`); lists of plain values as one cell (`a,b`), lists of objects left out. */
export function flattenObject(value: Record<string, unknown>, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (Array.isArray(v)) {
      // An empty list says nothing about its items: no cell (an empty one under fixed columns).
      if (v.length > 0 && v.every((x) => x === null || typeof x !== 'object')) out[key] = v.join(',');
      continue;
    }
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) flattenObject(v as Record<string, unknown>, key, out);
    else out[key] = v;
  }
  return out;
}

/** One CSV field: formulas neutralised (CSV injection), quoted when needed (RFC 4180). */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  // Fast paths (exports write millions of cells): nothing to neutralise or quote in these.
  if (typeof v === 'boolean' || (typeof v === 'number' && v >= 0)) return String(v);
  let s = v instanceof Date ? v.toISOString() : String(v);
  // Neutralise spreadsheet formulas (CSV injection) before quoting.
  const first = s.charCodeAt(0);
  if (first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13) s = `'${s}`; // = + - @ tab CR
  return QUOTED.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const QUOTED = /[",\r\n]/;

/**
 * A streamed CSV export: the route gives fixed columns (dotted paths into each object) and the
 * objects batch by batch, so an export of any size is written without holding it in memory.
 */
export interface CsvExport {
  /** File name offered in Content-Disposition. */
  filename: string;
  columns: string[];
  /** Batches of objects, read lazily (a keyset walk over the database). */
  batches: AsyncIterable<Record<string, unknown>[]>;
  /**
   * The cells of one object in column order, when the route can build them straight from its rows
   * (large exports: no view object to build and flatten per row). Default: flatten the object.
   */
  cells?: (obj: Record<string, unknown>) => unknown[];
}

/** The CSV text of an export, one chunk per batch (header first). */
export async function* csvChunks(exp: CsvExport): AsyncGenerator<string> {
  yield csvLine(exp.columns);
  for await (const batch of exp.batches) {
    let chunk = '';
    for (const obj of batch) {
      if (exp.cells) {
        chunk += csvLine(exp.cells(obj));
        continue;
      }
      const flat = flattenObject(obj);
      chunk += csvLine(exp.columns.map((c) => flat[c]));
    }
    if (chunk) yield chunk;
  }
}

/** Columns of an object's flattened shape (to declare an export's columns from a sample view). */
export function csvColumnsOf(sample: Record<string, unknown>): string[] {
  return Object.keys(flattenObject(sample));
}
