import type { FilterFields, FilterOp, FilterValue } from '@filigrane/core';

/** The aggregations served (spec: group-path, group-site-path, group-site-path-pageurl). */
export const AGGREGATION_NAMES = ['group-path', 'group-site-path', 'group-site-path-pageurl'] as const;
export type AggregationName = (typeof AGGREGATION_NAMES)[number];

export interface AggregationDef {
  name: AggregationName;
  description: string;
  /** Grouped by site too. */
  site: boolean;
  /** Grouped by page too. */
  page: boolean;
  /** SQL of the spec's `type` enum (0 unknown, 1 video, 2 image, 3 crawler, 4 site). */
  typeSql: string;
}

const MEDIA_TYPE = "CASE md.type WHEN 'video' THEN 1 WHEN 'image' THEN 2 ELSE 0 END";

export const AGGREGATIONS: Record<AggregationName, AggregationDef> = {
  'group-path': { name: 'group-path', description: 'Matches grouped by media (path)', site: false, page: false, typeSql: MEDIA_TYPE },
  'group-site-path': { name: 'group-site-path', description: 'Matches grouped by site and media', site: true, page: false, typeSql: '4' },
  'group-site-path-pageurl': { name: 'group-site-path-pageurl', description: 'Matches grouped by site, media and page', site: true, page: true, typeSql: '3' },
};

export const isAggregationName = (n: string | undefined): n is AggregationName => (AGGREGATION_NAMES as readonly string[]).includes(n ?? '');

/** Fields of the objects that exist but are not filterable (a clearer 400 than "unknown"). */
export const NOT_FILTERABLE = ['_version', 'deleted', 'url', 'matches', 'media', 'media.type', 'media.url', 'media.thumbnail', 'site'];

/** An id as the spec types it (a string) that PostgreSQL can compare with the bigint column. */
const BIGINT_ID = /^[1-9]\d{0,17}$/;
const DECIMAL = /^\d+$/;

/**
 * `_id` is a string in the spec, so every string operator applies (`_id__startswith=12`); the
 * ids are decimal numbers, so equality uses the indexed column, and an order (`_id__gt=99`) is
 * numeric for a decimal value (as the ids grow) and textual otherwise. A value no id can have
 * (`_id=abc`, twenty digits) matches nothing, never a database error.
 */
function idFilter(op: FilterOp, value: FilterValue, p: (v: unknown) => string): string | undefined {
  const ids = (vs: string[]) => vs.filter((v) => BIGINT_ID.test(v));
  switch (op) {
    case 'eq':
      return BIGINT_ID.test(value as string) ? `a.id = ${p(value)}::bigint` : 'FALSE';
    case 'ne':
      return BIGINT_ID.test(value as string) ? `a.id <> ${p(value)}::bigint` : 'TRUE';
    case 'in':
      return `a.id = ANY(${p(ids(value as string[]))}::bigint[])`;
    case 'gt':
    case 'lt':
    case 'gte':
    case 'lte': {
      const sign = { gt: '>', lt: '<', gte: '>=', lte: '<=' }[op];
      return DECIMAL.test(value as string) ? `a.id::numeric ${sign} ${p(value)}::numeric` : `a.id::text ${sign} ${p(value)}`;
    }
    default:
      return undefined; // startswith, isnull: as for any string
  }
}

/** Filterable fields of one aggregation and their SQL (a: aggregations, md: media, s: sites). */
export function aggregationFields(def: AggregationDef): FilterFields {
  const fields: FilterFields = {
    _id: { type: 'string', sql: 'a.id::text', custom: idFilter },
    group: { type: 'integer', sql: 'a.account_id' },
    type: { type: 'integer', sql: def.typeSql, choices: [0, 1, 2, 3, 4] },
    created: { type: 'date', sql: 'a.created' },
    updated: { type: 'date', sql: 'a.updated' },
    export: { type: 'boolean', sql: 'a.export' },
    tags: { type: 'string-list', sql: 'a.tags' },
    path: { type: 'string', sql: 'md.path' },
    'media.id': { type: 'integer', sql: 'a.media_id' },
    match_count: { type: 'integer', sql: 'a.match_count' },
    watermarked_count: { type: 'integer', sql: 'a.watermarked_count' },
    web_count: { type: 'integer', sql: 'a.web_count' },
    press_count: { type: 'integer', sql: 'a.press_count' },
    credit_count: { type: 'integer', sql: 'a.credit_count' },
    video_count: { type: 'integer', sql: 'a.video_count' },
    first_seen: { type: 'date', sql: 'a.first_seen' },
    last_seen: { type: 'date', sql: 'a.last_seen' },
    sessions: { type: 'integer-list', sql: 'a.sessions' },
  };
  if (def.site) {
    Object.assign(fields, {
      'site.id': { type: 'integer', sql: 'a.site_id' },
      'site.name': { type: 'string', sql: 's.name' },
      'site.domain': { type: 'string', sql: 's.domain', lowerCase: true },
      'site.suffix': { type: 'string', sql: "NULLIF(s.suffix, '')", lowerCase: true }, // '' is stored for no public suffix (an IP): null, as shown
      'site.country': { type: 'string', sql: 'upper(s.country)' },
    } satisfies FilterFields);
    fields['site.country']!.custom = (op, v, p) => (typeof v === 'string' ? scalarUpper(op, v, p) : undefined);
  }
  if (def.page) fields.page_url = { type: 'string', sql: 'a.page_url' };
  return fields;
}

// Country codes compare in upper case whatever the client sends.
function scalarUpper(op: string, v: string, p: (v: unknown) => string): string | undefined {
  if (op === 'eq') return `upper(s.country) = ${p(v.toUpperCase())}`;
  if (op === 'ne') return `upper(s.country) IS DISTINCT FROM ${p(v.toUpperCase())}`;
  return undefined;
}

/** CSV columns of one aggregation (dotted paths into the object; lists as one cell). */
export function csvColumns(def: AggregationDef): string[] {
  return [
    '_id', '_version', 'group', 'type', 'created', 'updated', 'export', 'deleted', 'tags', 'path', 'media.id', 'media.type', 'media.url',
    ...(def.site ? ['site.id', 'site.name', 'site.domain', 'site.suffix', 'site.country'] : []),
    ...(def.page ? ['page_url'] : []),
    'match_count', 'watermarked_count', 'web_count', 'press_count', 'credit_count', 'video_count', 'first_seen', 'last_seen', 'sessions', 'url',
  ];
}
