import { DirectiveLocation, GraphQLDirective, Kind, type OperationDefinitionNode } from 'graphql';
import type { GraphQLContext } from '@filigrane/core';
import type { FileUrls } from '../browser/file-urls.js';

/** `query Dashboard @signedUrls { ... }`: every file URL in the answer comes signed, for <img> and links. */
export const SIGNED_URLS_DIRECTIVE = new GraphQLDirective({
  name: 'signedUrls',
  description: 'Every file URL of this service in the answer (thumbnails, images, streams, artifacts) comes signed: openable without an Authorization header until it expires (SIGNED_URL_SECONDS). On a subscription, each event it delivers.',
  locations: [DirectiveLocation.QUERY, DirectiveLocation.SUBSCRIPTION],
});

/**
 * A result's data with its file URLs signed for the caller when the operation carries @signedUrls
 * (an HTTP answer, or one event of a subscription over WebSocket); otherwise the data as it is.
 */
export function signedData<T>(fileUrls: FileUrls, operation: OperationDefinitionNode | null | undefined, data: T, ctx: Pick<GraphQLContext, 'principal' | 'baseUrl'>): T {
  const asked = operation?.directives?.some((d) => d.kind === Kind.DIRECTIVE && d.name.value === SIGNED_URLS_DIRECTIVE.name);
  if (!asked || !ctx.principal || !data) return data;
  return fileUrls.signAll(data, ctx.baseUrl, ctx.principal.accountId);
}
