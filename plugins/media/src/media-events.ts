import { createExtensionPoint } from '@filigrane/core';
import type { Media } from './media.entity.js';
import type { ReducedOriginal } from '@filigrane/watermark';

/** What a listener learns when a media is registered: the row and the pixels to index. */
export interface RegisteredMedia {
  media: Media;
  /** Luma at the canonical grid (registration files) ... */
  reduced?: ReducedOriginal;
  /** ... or the image itself (plain registrations). */
  image?: Buffer;
}

/**
 * Extension point declared by the media plugin: other plugins (the visual index) learn about
 * registrations and deletions without the media plugin knowing them.
 */
export interface MediaEventsListener {
  registered(event: RegisteredMedia): Promise<void>;
  deleted(mediaIds: number[]): Promise<void>;
}

export const MEDIA_EVENTS = createExtensionPoint<MediaEventsListener>('media.events');
