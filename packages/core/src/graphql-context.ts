import type { Container } from 'inversify';
import { ApiError } from './errors.js';
import type { Principal } from './request-context.js';

/** The context every GraphQL resolver receives (`@Ctx() ctx: GraphQLContext`). */
export interface GraphQLContext {
  principal: Principal | null;
  requestId: string;
  baseUrl: string;
  container: Container;
  /** The request's DataLoaders (requestLoader), made on first use. */
  loaders?: Map<string, unknown>;
}

/** The caller, or the same 401 the REST adapter gives. */
export function requirePrincipal(ctx: GraphQLContext): Principal {
  if (!ctx.principal) throw new ApiError(401, 'not_authenticated', 'Authentication credentials were not provided.');
  return ctx.principal;
}
