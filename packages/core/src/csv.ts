/**
 * CSV for list endpoints (format=csv): one row per object; nested objects are flattened to
 * dotted columns and lists are dropped, as the spec says ("flattened or absent").
 */
export function toCsv(rows: Record<string, unknown>[]): string {
  const flat = rows.map((r) => flatten(r));
  const columns: string[] = [];
  for (const row of flat) for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k);
  const lines = [columns.map(cell).join(',')];
  for (const row of flat) lines.push(columns.map((c) => cell(row[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

function flatten(value: Record<string, unknown>, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (Array.isArray(v)) continue;
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) flatten(v as Record<string, unknown>, key, out);
    else out[key] = v;
  }
  return out;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = v instanceof Date ? v.toISOString() : String(v);
  // Neutralise spreadsheet formulas (CSV injection) before quoting.
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
