// Public module of the media plugin: what other plugins may use. Media rows are read through
// TOKENS.MediaReader (core); the entity, the blob layout and the helpers stay inside.
export { mediaPlugin } from './media.plugin.js';
export { MediaService } from './media.service.js';
export { RegistrationService } from './registration.service.js';
export { MEDIA_EVENTS, type MediaEventsListener, type RegisteredMedia, type VideoFrameEvent } from './media-events.js';
export { LOCAL_URLS, type LocalUrlResolver } from './local-urls.js';
export { TextQueryService, TEXT_SEARCH_LIMIT, type TextCriteria } from './text-query.service.js';
// GraphQL object types of media, for other plugins' objects that hold media (v3 match paths).
export { MediaType as MediaObject, VideoType as RegisteredVideoObject, ImageType as RegisteredImageObject, view as mediaObject } from './media.resolver.js';
