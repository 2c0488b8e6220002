import { badRequest } from './errors.js';
import { parseBoolean, parseDateValue, type DateValue } from './filters.js';
import type { QueryValue } from './route.js';
import { likePrefix } from './sql.js';

/**
 * The spec's filter language for collections: `field=v`, `!field=v`, `field__isnull=v`,
 * `field__startswith=v`, `field__in=a,b`, `field__gt/__lt/__gte/__lte=v`, `field>=v`, `field<=v`.
 * A collection declares its filterable fields (type + trusted SQL expression); values are typed
 * and every mistake is a 400 `invalid_filter` naming the parameter.
 */
export type FilterOp = 'eq' | 'ne' | 'isnull' | 'startswith' | 'in' | 'gt' | 'lt' | 'gte' | 'lte';
export type FilterType = 'string' | 'integer' | 'date' | 'boolean' | 'string-list' | 'integer-list';

export interface FilterField {
  type: FilterType;
  /** SQL expression of the field (trusted, never built from the request). */
  sql: string;
  /** Allowed integer values (enums such as the aggregation `type`). */
  choices?: number[];
  /** Values are lower-cased before comparing (the column is stored in lower case: domains, suffixes). */
  lowerCase?: boolean;
  /**
   * Own SQL for an operator (for example a path that also covers what is below it); undefined falls back.
   * It may throw a 400 (`badRequest` with per-parameter details) for a value it refuses: parseFilterQuery
   * calls it once too, so the refusal comes before any answer is started. It must be free of side effects.
   */
  custom?: (op: FilterOp, value: FilterValue, param: (v: unknown) => string) => string | undefined;
}

export type FilterValue = string | number | boolean | DateValue | string[] | number[] | DateValue[];

export interface FilterCondition {
  /** The query parameter as sent (for error messages). */
  param: string;
  field: string;
  op: FilterOp;
  value: FilterValue;
}

export type FilterFields = Record<string, FilterField>;

export interface FilterParseOptions {
  /** Parameters that are not filters (page, page_size, format, cursor, route-specific ones). */
  reserved?: string[];
  /** Fields of the objects that exist but cannot be filtered on (a clearer 400 than "unknown"). */
  notFilterable?: string[];
  /** Renames applied to parameter names before parsing (spec spellings such as v3 `date_lte`). */
  aliases?: Record<string, string>;
}

const SUFFIXES: Record<string, FilterOp> = {
  __isnull: 'isnull',
  __startswith: 'startswith',
  __in: 'in',
  __gte: 'gte',
  __lte: 'lte',
  __gt: 'gt',
  __lt: 'lt',
};

/** The operators each type of field takes. */
export const FILTER_OPERATORS: Record<FilterType, FilterOp[]> = {
  string: ['eq', 'ne', 'isnull', 'startswith', 'in', 'gt', 'lt', 'gte', 'lte'],
  integer: ['eq', 'ne', 'isnull', 'in', 'gt', 'lt', 'gte', 'lte'],
  date: ['eq', 'ne', 'isnull', 'in', 'gt', 'lt', 'gte', 'lte'],
  boolean: ['eq', 'ne', 'isnull', 'in'],
  'string-list': ['eq', 'ne', 'isnull', 'in', 'startswith'],
  'integer-list': ['eq', 'ne', 'isnull', 'in'],
};

const DEFAULT_RESERVED = ['page', 'page_size', 'format', 'cursor'];

const invalid = (param: string, message: string) => badRequest('invalid_filter', { [param]: [message] });

/** Splits a parameter name into field and operator. */
export function parseFilterName(name: string): { field: string; op: FilterOp } {
  if (name.startsWith('!')) return { field: name.slice(1), op: 'ne' };
  if (name.endsWith('>')) return { field: name.slice(0, -1), op: 'gte' };
  if (name.endsWith('<')) return { field: name.slice(0, -1), op: 'lte' };
  for (const [suffix, op] of Object.entries(SUFFIXES)) if (name.endsWith(suffix)) return { field: name.slice(0, -suffix.length), op };
  return { field: name, op: 'eq' };
}

function splitList(values: string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

// Lists of integers are int[] columns (no cross-type operator for arrays): their items must fit int4.
const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

function integer(raw: string, param: string, field: FilterField): number {
  if (!/^-?\d{1,15}$/.test(raw.trim())) throw invalid(param, `"${raw}" is not an integer.`);
  const n = Number(raw);
  if (field.type === 'integer-list' && (n < INT4_MIN || n > INT4_MAX)) throw invalid(param, `"${raw}" is out of range (${INT4_MIN} to ${INT4_MAX}).`);
  if (field.choices && !field.choices.includes(n)) throw invalid(param, `"${raw}" is not one of ${field.choices.join(', ')}.`);
  return n;
}

function scalar(raw: string, param: string, field: FilterField): string | number | boolean | DateValue {
  switch (field.type) {
    case 'integer':
    case 'integer-list':
      return integer(raw, param, field);
    case 'date':
      return parseDateValue(raw.trim(), param);
    case 'boolean':
      return parseBoolean(raw, param) ?? (() => { throw invalid(param, 'A boolean is required (true or false).'); })();
    default:
      return field.lowerCase ? raw.toLowerCase() : raw;
  }
}

/** Parses every filter parameter of a query string against a collection's fields. */
export function parseFilterQuery(query: Record<string, QueryValue>, fields: FilterFields, options: FilterParseOptions = {}): FilterCondition[] {
  const reserved = new Set([...DEFAULT_RESERVED, ...(options.reserved ?? [])]);
  const conditions: FilterCondition[] = [];
  const errors: Record<string, string[]> = Object.create(null); // keyed by what the client sent
  for (const [sent, raw] of Object.entries(query)) {
    if (reserved.has(sent) || raw === undefined) continue;
    // Own properties only: `constructor`, `__proto__` or `toString` are names a client sends, not fields.
    const param = (options.aliases && Object.hasOwn(options.aliases, sent) ? options.aliases[sent] : undefined) ?? sent;
    const { field: name, op } = parseFilterName(param);
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    try {
      if (!field) {
        throw invalid(sent, options.notFilterable?.includes(name) ? `"${name}" cannot be filtered on.` : `Unknown filter field "${name}".`);
      }
      if (!FILTER_OPERATORS[field.type].includes(op)) throw invalid(sent, `The operator "${op}" cannot be used on "${name}" (${field.type}).`);
      const values = Array.isArray(raw) ? raw : [raw];
      let value: FilterValue;
      if (op === 'isnull') {
        value = parseBoolean(values[values.length - 1], sent) ?? (() => { throw invalid(sent, 'A boolean is required (true or false).'); })();
      } else if (op === 'in' || ((field.type === 'string-list' || field.type === 'integer-list') && (op === 'eq' || op === 'ne'))) {
        const items = splitList(values);
        if (items.length === 0) throw invalid(sent, 'At least one value is required.');
        value = items.map((v) => scalar(v, sent, field)) as string[] | number[] | DateValue[];
      } else if (op === 'startswith') {
        value = values[values.length - 1]!;
        if (value === '') throw invalid(sent, 'A prefix is required.');
        if (field.lowerCase) value = value.toLowerCase();
      } else {
        value = scalar(values[values.length - 1]!, sent, field);
      }
      // A field's own SQL may refuse a value (review_state's states): asked here, while the answer can
      // still be a 400. In filterSql alone, a CSV export had already sent its 200 and was cut short.
      field.custom?.(op, value, () => '$0');
      conditions.push({ param: sent, field: name, op, value });
    } catch (err) {
      const details = (err as { details?: Record<string, string[]> }).details;
      if (!details || typeof details !== 'object') throw err;
      for (const [k, v] of Object.entries(details)) (errors[k] ??= []).push(...v);
    }
  }
  // An exact date means a whole day or instant: combined with a range on the same field it is a mistake (spec's ctime/date rule).
  for (const c of conditions) {
    if (fields[c.field]!.type === 'date' && c.op === 'eq' && conditions.some((o) => o.field === c.field && o !== c && o.op !== 'isnull')) {
      (errors[c.param] ??= []).push(`${c.param} cannot be combined with other ${c.field} lookups.`);
    }
  }
  if (Object.keys(errors).length) throw badRequest('invalid_filter', errors, Object.entries(errors).map(([field, m]) => ({ field, code: 'invalid_filter', details: m.join(' ') })));
  return conditions;
}

/** SQL conditions (joined with AND by the caller); values go to `params` as $n placeholders. */
export function filterSql(conditions: FilterCondition[], fields: FilterFields, params: unknown[]): string[] {
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  return conditions.map((c) => {
    const field = fields[c.field]!;
    const custom = field.custom?.(c.op, c.value, p);
    if (custom !== undefined) return custom;
    return field.type === 'string-list' || field.type === 'integer-list' ? listSql(field, c, p) : scalarSql(field, c, p);
  });
}

function listSql(field: FilterField, c: FilterCondition, p: (v: unknown) => string): string {
  const col = field.sql;
  const cast = field.type === 'integer-list' ? '::int[]' : '::text[]';
  switch (c.op) {
    case 'isnull':
      return c.value ? `COALESCE(cardinality(${col}), 0) = 0` : `cardinality(${col}) > 0`;
    case 'startswith':
      return `EXISTS (SELECT 1 FROM unnest(${col}) x WHERE starts_with(x, ${p(c.value)}))`;
    case 'ne':
      return `NOT (COALESCE(${col}, '{}') && ${p(c.value)}${cast})`;
    default:
      // `tags=a` has a; `tags=a,b` and `tags__in=a,b` have any of them.
      return `${col} && ${p(c.value)}${cast}`;
  }
}

function scalarSql(field: FilterField, c: FilterCondition, p: (v: unknown) => string): string {
  const col = field.sql;
  if (c.op === 'isnull') return c.value ? `${field.sql} IS NULL` : `${field.sql} IS NOT NULL`;
  if (field.type === 'date') return dateSql(col, c, p);
  // An integer is sent as bigint whatever the column: an int4 column then compares across types
  // (indexes still apply) and a value beyond its range matches nothing instead of failing the query.
  const v = () => (field.type === 'integer' ? `${p(c.value)}::bigint` : p(c.value));
  switch (c.op) {
    case 'eq':
      return `${col} = ${v()}`;
    case 'ne':
      return `${col} IS DISTINCT FROM ${v()}`;
    case 'in':
      return `${col} = ANY(${p(c.value)}${field.type === 'integer' ? '::bigint[]' : field.type === 'boolean' ? '::boolean[]' : '::text[]'})`;
    case 'startswith':
      return `${col} LIKE ${p(likePrefix(c.value as string))}`;
    case 'gt':
      return `${col} > ${v()}`;
    case 'lt':
      return `${col} < ${v()}`;
    case 'gte':
      return `${col} >= ${v()}`;
    default:
      return `${col} <= ${v()}`;
  }
}

// A date (whole UTC day) or a date-time (that instant): `=` is within it, `>` after it, `<=` up to its end.
function dateSql(col: string, c: FilterCondition, p: (v: unknown) => string): string {
  const within = (d: DateValue) => `(${col} >= ${p(d.start)} AND ${col} < ${p(d.end)})`;
  const d = c.value as DateValue;
  switch (c.op) {
    case 'eq':
      return within(d);
    case 'ne':
      return `(${col} IS NULL OR NOT ${within(d)})`;
    case 'in':
      return `(${(c.value as unknown as DateValue[]).map(within).join(' OR ')})`;
    case 'gt':
      return `${col} >= ${p(d.end)}`;
    case 'lt':
      return `${col} < ${p(d.start)}`;
    case 'gte':
      return `${col} >= ${p(d.start)}`;
    default:
      return `${col} < ${p(d.end)}`;
  }
}
