import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { requireBlob, TOKENS, withTempFile, type BlobStore, type ExtensionRegistry } from '@filigrane/core';
import { pipelined, sampleFrames, VideoError } from '@filigrane/video';
import { fingerprintPool } from '@filigrane/vision';
import { Media } from './media.entity.js';
import { MEDIA_EVENTS } from './media-events.js';
import { blobKeys } from './media.service.js';

export const VIDEO_QUEUE = 'media.video';
/** Steady sampling rate of registered videos (frames per second). */
export const VIDEO_FPS = 2;
/**
 * Long side of the sampled frames, registered and query alike (pixels): ORB on 384 px costs 60% of
 * 512 px, and a frame of a video rarely carries more detail worth telling copies apart.
 */
export const VIDEO_SIDE = 384;
/** Frames described at once: one per fingerprint thread and one being decoded. */
export const FRAMES_IN_FLIGHT = fingerprintPool().size + 1;
/** ORB's FAST threshold for video frames, registered and query alike (see FingerprintOptions). */
export const VIDEO_FAST_THRESHOLD = 20;

/** Time limit of one decoding pass: 2 minutes plus the video's own length (at least 1x real time). */
export const decodeTimeoutMs = (seconds: number | null) => 120_000 + Math.ceil((seconds ?? 3600) * 1000);

/**
 * Fingerprinting of registered videos, as pg-boss work: frames sampled at a steady rate and at
 * each scene cut are streamed to MEDIA_EVENTS listeners (the visual index), a few at a time, in
 * order. A re-run after a crash sends the same frame slots again, which listeners store idempotently.
 */
@injectable()
export class VideoProcessingService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
  ) {}

  async process(mediaId: number): Promise<void> {
    const media = await this.db.manager.findOne(Media, { where: { id: mediaId } });
    if (!media || media.type !== 'video' || !media.width || !media.height) return;
    const data = await requireBlob(this.blobs, blobKeys(media.id).original); // missing: the job fails, its key logged
    const listeners = this.extensions.get(MEDIA_EVENTS).filter((l) => l.videoFrame);
    try {
      await withTempFile(data, async (file) => {
        let frames = 0;
        const sampled = sampleFrames(file, { fps: VIDEO_FPS, scenes: true, side: VIDEO_SIDE, width: media.width!, height: media.height!, timeoutMs: decodeTimeoutMs(media.duration) });
        // Listeners describe (on the fingerprint threads) and store several frames at once, in order.
        const indexed = pipelined(sampled, (frame) => {
          const event = { media, index: frame.slot, time: frame.time, luma: frame.luma, width: frame.width, height: frame.height };
          return Promise.all(listeners.map((l) => l.videoFrame!(event)));
        }, FRAMES_IN_FLIGHT);
        for await (const _ of indexed) frames++;
        if (frames === 0) throw new VideoError('video_empty', 'no frame could be decoded');
      });
      await this.db.query(`UPDATE media SET processing = 'ready', processing_error = NULL WHERE id = $1`, [media.id]);
    } catch (err) {
      if (!(err instanceof VideoError)) throw err; // pg-boss retries what may be transient
      await this.db.query(`UPDATE media SET processing = 'failed', processing_error = $2 WHERE id = $1`, [media.id, err.message]);
    }
  }
}
