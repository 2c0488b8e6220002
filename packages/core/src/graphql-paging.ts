import type { ClassType } from 'type-graphql';
import { Field, ObjectType } from 'type-graphql';
import { badRequest } from './errors.js';
import { MAX_PAGE_SIZE } from './pagination.js';

/**
 * A page size from GraphQL arguments: default and maximum 100, like REST; 0 or less is the same
 * 400 `invalid_page_size` REST answers (it used to be clamped silently).
 */
export function graphqlPageSize(value: number | null | undefined, name = 'pageSize'): number {
  if (value === undefined || value === null) return MAX_PAGE_SIZE;
  if (!Number.isSafeInteger(value) || value < 1) throw badRequest('invalid_page_size', `${name} must be a positive integer (at most ${MAX_PAGE_SIZE}).`);
  return Math.min(value, MAX_PAGE_SIZE);
}

@ObjectType('PageInfo', { description: 'Relay-style page information of a connection.' })
export class PageInfo {
  @Field(() => Boolean) hasNextPage!: boolean;
  @Field(() => Boolean) hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true }) startCursor!: string | null;
  @Field(() => String, { nullable: true }) endCursor!: string | null;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
}

/** `<Name>Connection` and `<Name>Edge` object types for a node type (Relay's connection shape). */
export function connectionType<T extends object>(name: string, node: ClassType<T>): ClassType<Connection<T>> {
  @ObjectType(`${name}Edge`)
  class Edge {
    @Field(() => String) cursor!: string;
    @Field(() => node) node!: T;
  }
  @ObjectType(`${name}Connection`)
  class ConnectionType {
    @Field(() => [Edge]) edges!: Edge[];
    @Field(() => [node], { description: 'The nodes of the edges, for clients that need no cursor per node.' }) nodes!: T[];
    @Field(() => PageInfo) pageInfo!: PageInfo;
  }
  return ConnectionType as ClassType<Connection<T>>;
}

const OFFSET_CURSOR = /^o:(\d{1,10})$/;

/** An opaque cursor for the collections REST pages by number (crawl sessions, batches, press issues). */
export const offsetCursor = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');

/** The row offset after a cursor (`after`); anything forged is a 400 `invalid_cursor`. */
export function offsetAfter(after: string | null | undefined): number {
  if (!after) return 0;
  const m = OFFSET_CURSOR.exec(Buffer.from(after, 'base64url').toString('utf8'));
  if (!m || Number(m[1]) > 2_147_483_646) throw badRequest('invalid_cursor', 'The cursor is not valid.');
  return Number(m[1]) + 1;
}

/** A connection of `rows` read from `offset`; `hasMore` says a row followed them. */
export function offsetConnection<R, T>(rows: R[], offset: number, hasMore: boolean, node: (r: R) => T): Connection<T> {
  const edges = rows.map((r, i) => ({ cursor: offsetCursor(offset + i), node: node(r) }));
  return {
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasNextPage: hasMore,
      hasPreviousPage: offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

/** `first` of a connection: as pageSize (default and maximum 100; 0 or less refused). */
export const connectionFirst = (first: number | null | undefined) => graphqlPageSize(first, 'first');

/**
 * A connection over a collection REST pages by number: `first` and `after` checked, then `read`
 * gives the rows from an offset and the count of rows (or at least one more than were read when
 * more follow).
 */
export async function offsetPage<R, T>(
  first: number | null | undefined,
  after: string | null | undefined,
  read: (offset: number, limit: number) => Promise<[R[], number]>,
  node: (r: R) => T,
): Promise<Connection<T>> {
  const limit = connectionFirst(first);
  const offset = offsetAfter(after);
  const [rows, count] = await read(offset, limit);
  return offsetConnection(rows, offset, count > offset + rows.length, node);
}
