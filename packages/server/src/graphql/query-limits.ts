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

/** Measures the operation that will run (the named one, or the only one). */
export function measureQuery(doc: DocumentNode, operationName?: string | null): QueryMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const operations = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  const m: QueryMeasure = { depth: 0, cost: 0, aliases: 0, mutations: 0 };
  if (!op) return m;
  // Introspection (`__schema`, `__type`) nests `ofType` deeper than the depth limit (GraphiQL's and
  // codegen's standard query is 13 deep): its fields count in the cost, its depth does not.
  const walk = (set: SelectionSetNode, depth: number, seen: Set<string>, introspection = false) => {
    // Past the limits there is nothing more to learn (and a fragment bomb must not take us long).
    if (depth > GRAPHQL_LIMITS.depth + 1 || m.cost > GRAPHQL_LIMITS.cost) return;
    if (!introspection) m.depth = Math.max(m.depth, depth);
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        m.cost++;
        if (s.alias) m.aliases++;
        const inside = introspection || s.name.value === '__schema' || s.name.value === '__type';
        if (s.selectionSet) walk(s.selectionSet, inside ? Math.min(depth, 1) : depth + 1, seen, inside);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(s.selectionSet, depth, seen, introspection);
      } else {
        const f = fragments.get(s.name.value);
        if (f && !seen.has(f.name.value)) walk(f.selectionSet, depth, new Set([...seen, f.name.value]), introspection);
      }
    }
  };
  walk(op.selectionSet, 1, new Set());
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
