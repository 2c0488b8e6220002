import {
  likeBelow,
  parseBoolean,
  parseFilterQuery,
  queryString,
  type FilterCondition,
  type FilterFields,
  type QueryValue,
} from '@filigrane/core';

/** Match filters, whatever the API version that parsed them (the spec's filter language). */
export interface MatchFilters {
  kind?: 'web' | 'press' | 'credit';
  /** One match (detail routes). */
  id?: number;
  conditions: FilterCondition[];
  fields: FilterFields;
  excludeBlacklisted: boolean;
}

// m: matches, s: sites, md: media.
const mediaPath: FilterFields[string] = {
  type: 'string',
  sql: 'md.path',
  // `media.path=/home/folder` is that media or every media below the folder.
  custom: (op, v, p) => {
    if (op !== 'eq' || typeof v !== 'string') return undefined;
    const path = v.replace(/\/+$/, '');
    return `(md.path = ${p(path)} OR md.path LIKE ${p(likeBelow(path))})`;
  },
};

/** GET /api/v4/matches/ filterable fields. */
export const V4_FIELDS: FilterFields = {
  id: { type: 'integer', sql: 'm.id' },
  date_created: { type: 'date', sql: 'm.date_created' },
  date_updated: { type: 'date', sql: 'm.date_updated' },
  watermarked: { type: 'boolean', sql: 'm.watermarked' },
  export: { type: 'boolean', sql: 'm.export' },
  tags: { type: 'string-list', sql: 'm.tags' },
  sessions: { type: 'integer-list', sql: 'm.sessions' },
  'site.id': { type: 'integer', sql: 'm.site_id' },
  'site.name': { type: 'string', sql: 's.name' },
  'site.suffix': { type: 'string', sql: "NULLIF(s.suffix, '')", lowerCase: true }, // '' is stored for no public suffix (an IP): null, as shown
  'site.domain': { type: 'string', sql: 's.domain', lowerCase: true },
  'site.country': { type: 'string', sql: 's.country' },
  'media.id': { type: 'integer', sql: 'm.media_id' },
  'media.path': mediaPath,
  'page.url': { type: 'string', sql: "NULLIF(m.page_url, '')" },
  'page.date_published': { type: 'date', sql: 'm.page_date_published' },
};

const V4_NOT_FILTERABLE = ['url', 'payload', 'media', 'site', 'page', 'media.type', 'media.thumbnail', 'media.image', 'page.type', 'page.headline'];

/** GET /api/v4/matches/ filters: the spec's list and the contributed ones, with every operator of the filter language. */
export function parseV4Filters(query: Record<string, QueryValue>, contributed: FilterFields = {}): MatchFilters {
  // Contributed fields (MATCH_FILTERS) come after the built-in ones and never replace them.
  const fields = Object.keys(contributed).length ? { ...contributed, ...V4_FIELDS } : V4_FIELDS;
  return {
    conditions: parseFilterQuery(query, fields, { reserved: ['blacklist'], notFilterable: V4_NOT_FILTERABLE }),
    fields,
    excludeBlacklisted: parseBoolean(queryString(query, 'blacklist'), 'blacklist') ?? false,
  };
}

const V3_COMMON: FilterFields = {
  id: { type: 'integer', sql: 'm.id' },
  date: { type: 'date', sql: 'm.date_created' },
};

/** v3 fields per listing (the spec's parameters, then the lookups the filter language adds). */
export const V3_FIELDS: Record<'web' | 'press' | 'credit', FilterFields> = {
  web: {
    ...V3_COMMON,
    watermarked: { type: 'boolean', sql: 'm.watermarked' },
    // Unknown exclusivity (null) is neither true nor false.
    exclusive: { type: 'boolean', sql: 'm.exclusive' },
    session_id: { type: 'integer-list', sql: 'm.sessions' },
    domain: { type: 'string', sql: 'm.host', lowerCase: true },
    query_page_url: { type: 'string', sql: "NULLIF(m.page_url, '')" },
  },
  press: { ...V3_COMMON, watermarked: { type: 'boolean', sql: 'm.watermarked' } },
  credit: { ...V3_COMMON, page_url: { type: 'string', sql: "NULLIF(m.page_url, '')" } },
};

// The spec's v3 spellings of the date lookups (`date_lte`), as the language's (`date__lte`).
const V3_ALIASES: Record<string, string> = { date_lt: 'date__lt', date_lte: 'date__lte', date_gt: 'date__gt', date_gte: 'date__gte' };

/** GET /api/v3/matches/<kind>/ filters. */
export function parseV3Filters(kind: 'web' | 'press' | 'credit', query: Record<string, QueryValue>): MatchFilters {
  const blacklist = kind === 'press' ? [] : ['blacklist'];
  return {
    kind,
    conditions: parseFilterQuery(query, V3_FIELDS[kind], { reserved: blacklist, aliases: V3_ALIASES, notFilterable: ['url', 'type', 'paths', 'image', 'created'] }),
    fields: V3_FIELDS[kind],
    excludeBlacklisted: kind === 'press' ? false : (parseBoolean(queryString(query, 'blacklist'), 'blacklist') ?? false),
  };
}

/** Filters of one match (detail routes). */
export const byId = (id: number, kind?: MatchFilters['kind']): MatchFilters => ({ id, kind, conditions: [], fields: V4_FIELDS, excludeBlacklisted: false });
