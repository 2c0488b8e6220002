import type { ApiError, Principal } from '@filigrane/core';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null (no or wrong credentials). */
    principal: Principal | null;
    /** Why the credentials given were refused; raised only by routes that need them. */
    authError: ApiError | null;
  }
}
