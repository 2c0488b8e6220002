import { Kind, parse, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { ApiError } from '@filigrane/core';

/** What one GraphQL request may ask for; beyond any of these it is refused before it runs. */
export const GRAPHQL_LIMITS = {
  /** Nesting of selections. */
  depth: 10,
  /** Fields selected, fragments expanded where they are used (the cost). */
  cost: 1000,
  /** Aliased fields (aliases let one request repeat an expensive field). */
  aliases: 30,
  /** Root fields of a mutation (each one a write). */
  mutations: 5,
  /** Cost one rate-limit request covers: a request counts ceil(cost / this) requests. */
  costPerRequest: 100,
};

export interface QueryMeasure {
  depth: number;
  cost: number;
  aliases: number;
  mutations: number;
}

/** What a selection set adds: fields (fragments expanded), aliases, and levels of nesting (itself included). */
interface Extent {
  cost: number;
  aliases: number;
  depth: number;
}

/** Sums past this stay here: a fragment bomb's cost is astronomical, not infinite. */
const add = (a: number, b: number) => Math.min(a + b, Number.MAX_SAFE_INTEGER);

/** Measures the operation that will run (the named one, or the only one). */
export function measureQuery(doc: DocumentNode, operationName?: string | null): QueryMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const operations = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  const m: QueryMeasure = { depth: 0, cost: 0, aliases: 0, mutations: 0 };
  if (!op) return m;
  // Each fragment is measured once (per mode) and its extent reused wherever it is spread: expanding
  // the spreads one by one took time exponential in the fragments (F0 { ...F1 ...F1 } F1 { ...F2
  // ...F2 }... with no field, which nothing cut short, blocked the process for minutes on one request).
  // A fragment spread within itself (refused by validation afterwards) adds nothing.
  const memo = new Map<string, Extent | 'measuring'>();
  const fragment = (name: string, introspection: boolean): Extent => {
    const key = `${introspection ? 'i' : 'o'}:${name}`;
    const known = memo.get(key);
    if (known === 'measuring') return { cost: 0, aliases: 0, depth: 0 };
    if (known) return known;
    const f = fragments.get(name);
    if (!f) return { cost: 0, aliases: 0, depth: 0 };
    memo.set(key, 'measuring');
    const extent = measure(f.selectionSet, introspection);
    memo.set(key, extent);
    return extent;
  };
  // Introspection (`__schema`, `__type`) nests `ofType` deeper than the depth limit (GraphiQL's and
  // codegen's standard query is 13 deep): its fields count in the cost, its depth does not.
  const measure = (set: SelectionSetNode, introspection: boolean): Extent => {
    const e: Extent = { cost: 0, aliases: 0, depth: introspection ? 0 : 1 };
    const merge = (sub: Extent, levelsBelow: number) => {
      e.cost = add(e.cost, sub.cost);
      e.aliases = add(e.aliases, sub.aliases);
      e.depth = Math.max(e.depth, sub.depth + levelsBelow);
    };
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        e.cost = add(e.cost, 1);
        if (s.alias) e.aliases = add(e.aliases, 1);
        if (!s.selectionSet) continue;
        const inside = introspection || s.name.value === '__schema' || s.name.value === '__type';
        const sub = measure(s.selectionSet, inside);
        if (inside) merge({ ...sub, depth: 0 }, 0);
        else merge(sub, 1);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        merge(measure(s.selectionSet, introspection), 0);
      } else {
        merge(fragment(s.name.value, introspection), 0);
      }
    }
    return e;
  };
  const extent = measure(op.selectionSet, false);
  m.depth = extent.depth;
  m.cost = extent.cost;
  m.aliases = extent.aliases;
  if (op.operation === 'mutation') m.mutations = op.selectionSet.selections.length;
  return m;
}

/** A refusal for complexity, with what was measured: GraphQL answers it as QUERY_TOO_COMPLEX with the limits. */
export class QueryTooComplexError extends ApiError {
  constructor(
    readonly measure: QueryMeasure,
    readonly over: { limit: keyof QueryMeasure; max: number; actual: number }[],
  ) {
    super(400, 'query_too_complex', `The GraphQL query is too complex: ${over.map((o) => `${o.limit} ${o.actual} over the limit of ${o.max}`).join(', ')}. Split it into several requests.`);
  }
}

/**
 * Checks a request's query against GRAPHQL_LIMITS: 400 `query_too_complex` naming the limit.
 * Returns the cost (null when the query does not parse: GraphQL then answers its own error).
 */
export function checkQuery(query: unknown, operationName: unknown): number | null {
  if (typeof query !== 'string') return null;
  let doc: DocumentNode;
  try {
    doc = parse(query, { maxTokens: 20_000 });
  } catch {
    return null;
  }
  return checkDocument(doc, operationName);
}

/** checkQuery for a document already parsed: 400 `query_too_complex` naming the limit, else the cost. */
export function checkDocument(doc: DocumentNode, operationName: unknown): number {
  const m = measureQuery(doc, typeof operationName === 'string' ? operationName : null);
  const over = (['depth', 'cost', 'aliases', 'mutations'] as const)
    .filter((limit) => m[limit] > GRAPHQL_LIMITS[limit])
    .map((limit) => ({ limit, max: GRAPHQL_LIMITS[limit], actual: m[limit] }));
  if (over.length) throw new QueryTooComplexError(m, over);
  return m.cost;
}
