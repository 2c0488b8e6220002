import { createExtensionPoint, type MediaRecord } from '@filigrane/core';
import type { ReducedOriginal } from '@filigrane/watermark';

/** What a listener learns when a media is registered: the row and the pixels to index. */
export interface RegisteredMedia {
  media: MediaRecord;
  /** Luma at the canonical grid (registration files) ... */
  reduced?: ReducedOriginal;
  /** ... or the image itself (plain registrations). */
  image?: Buffer;
}

/**
 * Extension point declared by the media plugin: other plugins (the visual index) learn about
 * registrations and deletions without the media plugin knowing them.
 */
/** One sampled frame of a registered video, handed to listeners in order while it is fingerprinted. */
export interface VideoFrameEvent {
  media: MediaRecord;
  /** The frame's slot on the time line (tenths of a second, SLOTS_PER_SECOND); the same again when a job is re-run. */
  index: number;
  /** Seconds from the start of the video. */
  time: number;
  luma: Uint8Array;
  width: number;
  height: number;
}

export interface MediaEventsListener {
  registered(event: RegisteredMedia): Promise<void>;
  /** Videos: each sampled frame, while the media.video job runs. */
  videoFrame?(event: VideoFrameEvent): Promise<void>;
  deleted(mediaIds: number[]): Promise<void>;
}

export const MEDIA_EVENTS = createExtensionPoint<MediaEventsListener>('media.events');
