import { Field, InputType, Int } from 'type-graphql';
import { createExtensionPoint } from './extension-point.js';
import type { FilterFields, FilterType } from './filter-language.js';
import type { QueryValue } from './route.js';

// Typed operators of the spec's filter language for GraphQL. A GraphQL filter is translated to the
// REST query string the collection already parses (one parser, one set of errors), never to SQL.

@InputType('StringFilter', { description: 'String operators: equals, not, in, startsWith, isNull and an order (gt, gte, lt, lte).' })
export class StringFilter {
  @Field(() => String, { nullable: true }) equals?: string;
  @Field(() => String, { nullable: true }) not?: string;
  @Field(() => [String], { nullable: true, description: 'Any of these (a value must not contain a comma: REST splits on it).' }) in?: string[];
  @Field(() => String, { nullable: true }) startsWith?: string;
  @Field(() => Boolean, { nullable: true }) isNull?: boolean;
  @Field(() => String, { nullable: true }) gt?: string;
  @Field(() => String, { nullable: true }) gte?: string;
  @Field(() => String, { nullable: true }) lt?: string;
  @Field(() => String, { nullable: true }) lte?: string;
}

/** Integer ids and counts travel as Float so a bigint id beyond 32 bits still fits (exact up to 2^53). */
@InputType('IntFilter', { description: 'Integer operators: equals, not, in, isNull, gt, gte, lt, lte.' })
export class IntFilter {
  @Field(() => Number, { nullable: true }) equals?: number;
  @Field(() => Number, { nullable: true }) not?: number;
  @Field(() => [Number], { nullable: true }) in?: number[];
  @Field(() => Boolean, { nullable: true }) isNull?: boolean;
  @Field(() => Number, { nullable: true }) gt?: number;
  @Field(() => Number, { nullable: true }) gte?: number;
  @Field(() => Number, { nullable: true }) lt?: number;
  @Field(() => Number, { nullable: true }) lte?: number;
}

@InputType('DateFilter', { description: 'Dates as ISO 8601 dates (a whole UTC day) or date-times (an instant): equals is within, gt after, lte up to its end.' })
export class DateFilter {
  @Field(() => String, { nullable: true }) equals?: string;
  @Field(() => String, { nullable: true }) not?: string;
  @Field(() => [String], { nullable: true }) in?: string[];
  @Field(() => Boolean, { nullable: true }) isNull?: boolean;
  @Field(() => String, { nullable: true }) gt?: string;
  @Field(() => String, { nullable: true }) gte?: string;
  @Field(() => String, { nullable: true }) lt?: string;
  @Field(() => String, { nullable: true }) lte?: string;
}

@InputType('DateRangeFilter', { description: 'A date range (collections whose REST filters are `<field>`, `_lt`, `_lte`, `_gt`, `_gte` only).' })
export class DateRangeFilter {
  @Field(() => String, { nullable: true }) equals?: string;
  @Field(() => String, { nullable: true }) gt?: string;
  @Field(() => String, { nullable: true }) gte?: string;
  @Field(() => String, { nullable: true }) lt?: string;
  @Field(() => String, { nullable: true }) lte?: string;
}

@InputType('BooleanFilter', { description: 'Boolean operators: equals, not, in, isNull.' })
export class BooleanFilter {
  @Field(() => Boolean, { nullable: true }) equals?: boolean;
  @Field(() => Boolean, { nullable: true }) not?: boolean;
  @Field(() => [Boolean], { nullable: true }) in?: boolean[];
  @Field(() => Boolean, { nullable: true }) isNull?: boolean;
}

@InputType('StringListFilter', { description: 'A list field (tags): equals/in has any of the values, not has none, startsWith has one starting so, isNull is empty.' })
export class StringListFilter {
  @Field(() => [String], { nullable: true }) equals?: string[];
  @Field(() => [String], { nullable: true }) not?: string[];
  @Field(() => [String], { nullable: true }) in?: string[];
  @Field(() => String, { nullable: true }) startsWith?: string;
  @Field(() => Boolean, { nullable: true }) isNull?: boolean;
}

@InputType('IntListFilter', { description: 'A list of integers (sessions): equals/in has any of the values, not has none, isNull is empty.' })
export class IntListFilter {
  @Field(() => [Int], { nullable: true }) equals?: number[];
  @Field(() => [Int], { nullable: true }) not?: number[];
  @Field(() => [Int], { nullable: true }) in?: number[];
  @Field(() => Boolean, { nullable: true }) isNull?: boolean;
}

const OPERATOR_TYPES: Record<FilterType, Function> = {
  string: StringFilter,
  integer: IntFilter,
  date: DateFilter,
  boolean: BooleanFilter,
  'string-list': StringListFilter,
  'integer-list': IntListFilter,
};

/** REST parameter of each GraphQL operator (`site.domain` + not = `!site.domain`). */
const OPERATOR_PARAMS: Record<string, (field: string) => string> = {
  equals: (f) => f,
  not: (f) => `!${f}`,
  in: (f) => `${f}__in`,
  startsWith: (f) => `${f}__startswith`,
  isNull: (f) => `${f}__isnull`,
  gt: (f) => `${f}__gt`,
  gte: (f) => `${f}__gte`,
  lt: (f) => `${f}__lt`,
  lte: (f) => `${f}__lte`,
};

/** The GraphQL name of a REST filter field: `site.domain` -> siteDomain, `_id` -> id, `match_count` -> matchCount. */
export function graphqlFieldName(restField: string): string {
  return restField.replace(/^_+/, '').replace(/[._]+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export interface FilterInputOptions {
  description?: string;
  /** REST fields left out of the GraphQL filter (say why where it is declared). */
  omit?: string[];
  /** Operator types other than the field type's (a collection that takes fewer operators: DateRangeFilter). */
  operatorTypes?: Record<string, Function>;
  /** Extra fields: REST parameter -> GraphQL type (scalars such as `blacklist`), passed as they are. */
  extra?: Record<string, { type: () => unknown; description?: string }>;
}

/** What a filter input knows to translate itself back to REST parameters. */
export interface FilterInputClass {
  new (): object;
  /** GraphQL field name -> REST field (or extra parameter) and whether it is an operator object. */
  restFields: Map<string, { rest: string; operators: boolean }>;
}

/**
 * A GraphQL input type with one operator object per filterable field of a REST collection (the
 * same declaration the REST parser reads), so every REST filter has its typed GraphQL counterpart.
 */
export function filterInputType(name: string, fields: FilterFields, options: FilterInputOptions = {}): FilterInputClass {
  const cls = { [name]: class {} }[name] as unknown as FilterInputClass;
  cls.restFields = new Map();
  addFilterFields(cls, Object.fromEntries(Object.entries(fields).filter(([rest]) => !options.omit?.includes(rest))), options.operatorTypes);
  for (const [rest, extra] of Object.entries(options.extra ?? {})) {
    const gql = graphqlFieldName(rest);
    cls.restFields.set(gql, { rest, operators: false });
    Field(extra.type as () => Function, { nullable: true, description: extra.description ?? `REST \`${rest}\`` })(cls.prototype, gql);
  }
  InputType(name, { description: options.description })(cls);
  return cls;
}

/**
 * Adds operator fields for REST fields the input does not have yet (filters other plugins contribute
 * to a collection), before the schema is built (GRAPHQL_SCHEMA_HOOKS). Never removes one.
 */
export function addFilterFields(cls: FilterInputClass, fields: FilterFields, operatorTypes?: Record<string, Function>, descriptions: Record<string, string> = {}): void {
  for (const [rest, field] of Object.entries(fields)) {
    const gql = graphqlFieldName(rest);
    if (cls.restFields.has(gql)) continue;
    cls.restFields.set(gql, { rest, operators: true });
    Field(() => operatorTypes?.[rest] ?? OPERATOR_TYPES[field.type], { nullable: true, description: descriptions[rest] ?? `REST \`${rest}\`` })(cls.prototype, gql);
  }
}

/**
 * Run just before the GraphQL schema is built (contributions are all known then): a plugin adds to
 * its types what other plugins contributed (the match filters of MATCH_FILTERS). Declared by core.
 */
export const GRAPHQL_SCHEMA_HOOKS = createExtensionPoint<() => void>('core.graphql-schema-hooks');

const text = (v: unknown) => (Array.isArray(v) ? v.map(String).join(',') : String(v));

/**
 * A GraphQL filter as the REST query string of its collection, for the collection's own parser.
 * `param` renames the REST parameters of a collection with its own spellings (v3 `date_lte`).
 */
export function filterToQuery(filter: object | null | undefined, type: FilterInputClass, param?: (rest: string, op: string) => string | undefined): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [gql, value] of Object.entries(filter ?? {})) {
    if (value === undefined || value === null) continue;
    const target = type.restFields.get(gql);
    if (!target) continue; // graphql-js already refused fields the input type does not have
    if (!target.operators) {
      query[target.rest] = text(value);
      continue;
    }
    for (const [op, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined || v === null) continue;
      const name = param?.(target.rest, op) ?? OPERATOR_PARAMS[op]!(target.rest);
      // An empty list is a mistake the REST parser names ("At least one value is required").
      query[name] = Array.isArray(v) && v.length === 0 ? '' : text(v);
    }
  }
  return query;
}
