import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import { definePlugin, file, notFound, ok, requirePrincipal, validationError, type ErrorItem, type GraphQLContext, type Principal } from '@filigrane/core';
import { FILE_URLS, type FileUrls } from './file-urls.js';
import { LiveEventsResolver } from '../graphql/live-events.resolver.js';
import { EXPLORER_ASSETS_PATH, explorerAsset } from '../graphql/explorer.js';

const MAX_URLS = 500;

@ObjectType('SignedFileUrl')
class SignedFileUrl {
  @Field(() => String, { description: 'The URL as given.' }) url!: string;
  @Field(() => String, { description: 'The same file, openable without an Authorization header until `expires` (in <img>, links).' }) signedUrl!: string;
  @Field(() => Date) expires!: Date;
}

/** Signs each URL, or refuses the lot naming the ones that are not files of this service. */
function signList(fileUrls: FileUrls, principal: Principal, urls: unknown, baseUrl: string): SignedFileUrl[] {
  if (!Array.isArray(urls) || urls.length === 0 || urls.length > MAX_URLS || !urls.every((u) => typeof u === 'string' && u.length <= 4096)) {
    throw validationError([{ field: 'urls', code: 'invalid', details: `urls is a list of 1 to ${MAX_URLS} URLs.` }]);
  }
  const errors: ErrorItem[] = [];
  urls.forEach((u: string, i) => {
    if (fileUrls.filePath(u, baseUrl) === null) errors.push({ field: `urls.${i}`, code: 'not_a_file_url', details: `Not a file URL of this service (thumbnails, images, streams, batch files, watermarking assets): ${u.slice(0, 200)}` });
  });
  if (errors.length) throw validationError(errors);
  return (urls as string[]).map((url) => {
    const signed = fileUrls.sign(principal.accountId, url.startsWith('/') ? `${baseUrl}${url}` : url);
    return { url, signedUrl: signed.url, expires: signed.expires };
  });
}

@injectable()
@Resolver()
class SignedUrlsResolver {
  constructor(@inject(FILE_URLS) private readonly fileUrls: FileUrls) {}

  @Query(() => [SignedFileUrl], {
    description: 'Signed forms of file URLs (POST /api/v4/signed-urls/). A whole answer\'s file URLs are signed by writing `@signedUrls` on the operation.',
  })
  signedFileUrls(@Arg('urls', () => [String]) urls: string[], @Ctx() ctx: GraphQLContext): SignedFileUrl[] {
    return signList(this.fileUrls, requirePrincipal(ctx), urls, ctx.baseUrl);
  }
}

/**
 * Built into the gateway: what browsers need besides CORS (browser/cors.ts): signed file URLs
 * (REST and GraphQL) and the GraphQL subscriptions' resolvers.
 */
export const browserPlugin = definePlugin({
  id: 'browser',
  routes: [
    {
      method: 'GET',
      path: `${EXPLORER_ASSETS_PATH}/:asset`,
      auth: 'none',
      tags: ['api-docs'],
      summary: 'A static asset of the GraphQL explorer (GraphiQL from npm, served locally)',
      responses: { 200: { description: 'CSS or JavaScript' } },
      async handler(ctx) {
        const asset = explorerAsset(ctx.params.asset ?? '');
        if (!asset) throw notFound('No such explorer asset.');
        return { ...file(asset.body, asset.type), headers: { 'cache-control': 'public, max-age=86400' } };
      },
    },
    {
      versions: ['v4'],
      method: 'POST',
      path: '/signed-urls/',
      summary: 'Signed forms of file URLs (thumbnails, images, streams, batch files, assets): openable without an Authorization header until they expire (SIGNED_URL_SECONDS)',
      requestSchema: { type: 'object', required: ['urls'], additionalProperties: false, properties: { urls: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_URLS } } },
      responses: {
        200: {
          schema: {
            type: 'object',
            required: ['results'],
            properties: {
              results: {
                type: 'array',
                items: { type: 'object', required: ['url', 'signed_url', 'expires'], properties: { url: { type: 'string' }, signed_url: { type: 'string' }, expires: { type: 'string', format: 'date-time' } } },
              },
            },
          },
        },
      },
      async handler(ctx) {
        const body = (ctx.body ?? {}) as Record<string, unknown>;
        for (const k of Object.keys(body)) if (k !== 'urls') throw validationError([{ field: k, code: 'unknown_field', details: `Unknown field "${k}"; send {"urls": [...]}.` }]);
        const results = signList(ctx.container.get<FileUrls>(FILE_URLS), ctx.principal!, body.urls, ctx.baseUrl);
        return ok({ results: results.map((r) => ({ url: r.url, signed_url: r.signedUrl, expires: r.expires.toISOString() })) });
      },
    },
  ],
  resolvers: [SignedUrlsResolver, LiveEventsResolver],
});
