import { badRequest } from './errors.js';
import { queryString, type QueryValue } from './route.js';

const TRUE_WORDS = ['true', '1', 'yes'];
const FALSE_WORDS = ['false', '0', 'no'];

/** Query-string booleans: true/false, 1/0, yes/no (case-insensitive). */
export function parseBoolean(raw: string | undefined, name: string): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  const v = raw.toLowerCase();
  if (TRUE_WORDS.includes(v)) return true;
  if (FALSE_WORDS.includes(v)) return false;
  throw badRequest('invalid_filter', { [name]: [`"${raw}" is not a boolean (use true or false).`] });
}

/**
 * A boolean body field: JSON gives a boolean, a form field a string, read as the query string's
 * (so Python's `True`/`False` and `1`/`0` work too); undefined when it is neither.
 */
export function fieldBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return undefined;
  const word = v.trim().toLowerCase();
  return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : undefined;
}

/**
 * A list body field: JSON gives an array; a form field repeated, comma-separated, or one JSON
 * array (`["scale", "affine"]`). Strings are trimmed; a malformed JSON array stays one item.
 */
export function fieldList(v: unknown): unknown[] {
  const items = Array.isArray(v) ? v : [v];
  return items.flatMap((x) => {
    if (typeof x !== 'string') return [x];
    if (x.trim().startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(x);
        if (Array.isArray(parsed)) return parsed.map((y) => (typeof y === 'string' ? y.trim() : y));
      } catch {
        return [x];
      }
    }
    return x.split(',').map((y) => y.trim());
  });
}

/** A date (whole UTC day) or a date-time, as the spec's date filters accept. */
export interface DateValue {
  start: Date;
  /** Exclusive end: the next day for a date, start + 1 ms for a date-time. */
  end: Date;
  isDateOnly: boolean;
}

export function parseDateValue(raw: string, name: string): DateValue {
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) {
    const start = new Date(`${raw}T00:00:00.000Z`);
    if (!Number.isNaN(start.getTime()) && start.toISOString().startsWith(raw)) {
      return { start, end: new Date(start.getTime() + 86_400_000), isDateOnly: true };
    }
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(raw)) {
    const start = new Date(/[Zz]|[+-]\d{2}:?\d{2}$/.test(raw) ? raw : `${raw}Z`);
    if (!Number.isNaN(start.getTime())) return { start, end: new Date(start.getTime() + 1), isDateOnly: false };
  }
  throw badRequest('invalid_filter', { [name]: [`"${raw}" is not an ISO 8601 date or date-time.`] });
}

export type DateOp = 'eq' | 'lt' | 'lte' | 'gt' | 'gte';

export interface DateCondition {
  op: DateOp;
  value: DateValue;
}

/**
 * Date filters of one field: `<field>` (exact; not combinable), `<field>_lt`, `_lte`, `_gt`, `_gte`
 * (with `separator` '_' for v3 and '__' for v4).
 */
export function parseDateFilters(query: Record<string, QueryValue>, field: string, separator = '_'): DateCondition[] {
  const out: DateCondition[] = [];
  const exact = queryString(query, field);
  for (const op of ['lt', 'lte', 'gt', 'gte'] as const) {
    const name = `${field}${separator}${op}`;
    const raw = queryString(query, name);
    if (raw) out.push({ op, value: parseDateValue(raw, name) });
  }
  if (exact) {
    if (out.length > 0) {
      throw badRequest('invalid_filter', { [field]: [`${field} cannot be combined with other ${field} lookups.`] });
    }
    out.push({ op: 'eq', value: parseDateValue(exact, field) });
  }
  return out;
}

/** SQL for date conditions on a column; parameters are appended to `params` ($n placeholders). */
export function dateConditionsSql(column: string, conditions: DateCondition[], params: unknown[]): string[] {
  const sql: string[] = [];
  const p = (v: Date) => {
    params.push(v);
    return `$${params.length}`;
  };
  for (const { op, value } of conditions) {
    switch (op) {
      case 'eq':
        sql.push(`${column} >= ${p(value.start)} AND ${column} < ${p(value.end)}`);
        break;
      case 'lt':
        sql.push(`${column} < ${p(value.start)}`);
        break;
      case 'gte':
        sql.push(`${column} >= ${p(value.start)}`);
        break;
      case 'lte':
        sql.push(`${column} < ${p(value.end)}`);
        break;
      case 'gt':
        sql.push(`${column} >= ${p(value.end)}`);
        break;
    }
  }
  return sql;
}
