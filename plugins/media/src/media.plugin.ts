import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, contribute, definePlugin, isBlobStoreOutage, TOKENS } from '@filigrane/core';
import { LOCAL_URLS } from './local-urls.js';
import { Media } from './media.entity.js';
import { MEDIA_EVENTS } from './media-events.js';
import { MediaCatalog1764300002000, MediaInit1763700004000, MediaVideo1763900000000 } from './media.migration.js';
import { MediaResolver } from './media.resolver.js';
import { mediaRoutes } from './media.routes.js';
import { MediaService } from './media.service.js';
import { MediaReaderService } from './media-reader.service.js';
import { ClientUrlService } from './url-resolver.js';
import { ANNOUNCE_QUEUE, RegistrationService } from './registration.service.js';
import { TextQueryService } from './text-query.service.js';
import { VIDEO_QUEUE, VideoProcessingService } from './video-processing.service.js';

/** The media tree and registration: registration files, URLs, data URIs, plain images. */
export const mediaPlugin = definePlugin({
  id: 'media',
  requires: ['auth', 'account'],
  entities: [Media],
  migrations: [MediaInit1763700004000, MediaVideo1763900000000, MediaCatalog1764300002000],
  extensionPoints: [MEDIA_EVENTS, LOCAL_URLS],
  bindings: new ContainerModule(({ bind }) => {
    bind(MediaService).toSelf().inSingletonScope();
    bind(RegistrationService).toSelf().inSingletonScope();
    bind(TextQueryService).toSelf().inSingletonScope();
    bind(VideoProcessingService).toSelf().inSingletonScope();
    bind(MediaReaderService).toSelf().inSingletonScope();
    bind(TOKENS.MediaReader).toService(MediaReaderService);
    bind(ClientUrlService).toSelf().inSingletonScope();
    bind(TOKENS.ClientUrls).toService(ClientUrlService);
  }),
  contributions: [contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(MediaService).forgetAccount(accountId))],
  routes: mediaRoutes,
  resolvers: [MediaResolver],
  jobs: (c) => [
    // Polled often: a short video is fingerprinted in about the default interval (2 s).
    {
      queue: VIDEO_QUEUE,
      pollingIntervalSeconds: 0.5,
      handler: (data: { mediaId: number }) => c.get(VideoProcessingService).process(data.mediaId),
      // Its worker killed at every try (a crafted file), or its file missing: the video says failed, not pending forever.
      onFinalFailure: (data: { mediaId: number }, failure) => c.get(VideoProcessingService).abandon(data.mediaId, isBlobStoreOutage(failure)),
    },
    { queue: ANNOUNCE_QUEUE, handler: async (data: { mediaId: number }) => c.get(RegistrationService).reannounce(data.mediaId) },
  ],
});
