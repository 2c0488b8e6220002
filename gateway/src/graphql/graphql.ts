import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError } from 'graphql';
import type { Container } from 'inversify';
import { buildSchema, type NonEmptyArray } from 'type-graphql';
import { ApiError, type FiligranePlugin, type GraphQLContext } from '@filigrane/core';
import { toApiError } from '../rest/error-mapping.js';
import { EXPLORER_HTML } from './explorer.js';

/** Builds one schema from every plugin's resolvers; resolvers come from the DI container. */
export async function buildGraphQLSchema(plugins: FiligranePlugin[], container: Container) {
  const resolvers = plugins.flatMap((p) => p.resolvers ?? []);
  if (resolvers.length === 0) throw new Error('no plugin contributes GraphQL resolvers');
  return buildSchema({
    resolvers: resolvers as unknown as NonEmptyArray<Function>,
    container: { get: (cls) => container.get(cls) },
    validate: false,
  });
}

/** Errors carry the same code and status as the REST error body, in `extensions`. */
function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = (error as { originalError?: unknown }).originalError;
  if (!original) return formatted; // syntax and validation errors: Apollo's own codes
  const api = toApiError(original);
  return {
    message: typeof api.details === 'string' ? api.details : api.code,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: api.code, status_code: api.statusCode, details: api.details },
  };
}

export async function mountGraphQL(app: FastifyInstance, plugins: FiligranePlugin[], container: Container, baseUrlOf: (req: FastifyRequest) => string): Promise<ApolloServer<GraphQLContext>> {
  const schema = await buildGraphQLSchema(plugins, container);
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    formatError,
    plugins: [fastifyApolloDrainPlugin(app), ApolloServerPluginLandingPageDisabled()],
    // The CLI stops everything in order on SIGTERM/SIGINT; Apollo's own handler would re-raise the
    // signal and kill the process before the embedded database is closed and its lock released.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  const handler = fastifyApolloHandler(apollo, {
    context: async (req) => ({ principal: req.principal, requestId: req.id, baseUrl: baseUrlOf(req), container }),
  });
  app.route({
    method: ['GET', 'POST', 'OPTIONS'],
    url: '/graphql',
    preHandler: async (req) => {
      // Same credentials as REST: wrong ones are a 401 before any resolver runs.
      if (req.authError) throw req.authError;
      if (Buffer.isBuffer(req.body)) {
        if (!/json/.test(req.headers['content-type'] ?? '')) throw new ApiError(415, 'unsupported_media_type', 'POST /graphql takes application/json.');
        try {
          req.body = req.body.length ? JSON.parse(req.body.toString('utf8')) : undefined;
        } catch (err) {
          throw new ApiError(400, 'parse_error', `JSON parse error: ${(err as Error).message}`);
        }
      }
    },
    handler: async function (req, reply) {
      const wantsPage = req.method === 'GET' && !(req.query as Record<string, unknown>).query && (req.headers.accept ?? '').includes('text/html');
      if (wantsPage) return reply.type('text/html; charset=utf-8').send(EXPLORER_HTML);
      return handler.call(this, req as never, reply as never);
    },
  });
  return apollo;
}
