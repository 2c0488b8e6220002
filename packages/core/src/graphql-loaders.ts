import DataLoader from 'dataloader';
import type { GraphQLContext } from './graphql-context.js';
import type { MediaReader, MediaRecord } from './media-reader.js';
import { TOKENS } from './tokens.js';

/**
 * The request's DataLoader for `key`, made on first use: nested fields of a list (a match's media,
 * a session's batches) are read in one query per request and relation, not one per object. A
 * loader lives as long as the request (its cache never outlives what the caller may see).
 */
export function requestLoader<K, V>(ctx: GraphQLContext, key: string, batch: (keys: readonly K[]) => Promise<(V | Error)[]>): DataLoader<K, V> {
  const loaders = (ctx.loaders ??= new Map());
  let loader = loaders.get(key) as DataLoader<K, V> | undefined;
  if (!loader) {
    loader = new DataLoader<K, V>(batch, { maxBatchSize: 1000 });
    loaders.set(key, loader);
  }
  return loader;
}

/** The media of the caller's account by id (null when gone or not theirs), batched per request. */
export function mediaLoader(ctx: GraphQLContext, accountId: number): DataLoader<number, MediaRecord | null> {
  return requestLoader<number, MediaRecord | null>(ctx, `media:${accountId}`, async (ids) => {
    const found = await ctx.container.get<MediaReader>(TOKENS.MediaReader).byIds([...ids], accountId);
    const byId = new Map(found.map((m) => [m.id, m]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}
