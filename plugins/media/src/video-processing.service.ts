import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { requireBlob, TOKENS, withTempFile, type BlobStore, type ExtensionRegistry } from '@filigrane/core';
import { decodeTimeoutMs, pipelined, sampleFrames, VIDEO_FPS, VIDEO_SIDE, VideoError } from '@filigrane/video';
import { framesInFlight } from '@filigrane/vision';
import { Media } from './media.entity.js';
import { MEDIA_EVENTS } from './media-events.js';
import { blobKeys } from './media.service.js';

export const VIDEO_QUEUE = 'media.video';

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
        }, framesInFlight());
        for await (const _ of indexed) frames++;
        if (frames === 0) throw new VideoError('video_empty', 'no frame could be decoded');
      });
      await this.db.query(`UPDATE media SET processing = 'ready', processing_error = NULL WHERE id = $1`, [media.id]);
    } catch (err) {
      if (!(err instanceof VideoError)) throw err; // pg-boss retries what may be transient
      await this.db.query(`UPDATE media SET processing = 'failed', processing_error = $2 WHERE id = $1`, [media.id, err.message]);
    }
  }

  /**
   * A video whose processing runs all stopped without an outcome (the worker killed or crashed each
   * time, its file missing): failed, so it no longer says `pending`. Called by the job runner once
   * the retries are used up; the cause is in the operators' log.
   */
  async abandon(mediaId: number, storeDown = false): Promise<void> {
    await this.db.query(`UPDATE media SET processing = 'failed', processing_error = $2 WHERE id = $1 AND processing = 'pending'`, [
      mediaId,
      storeDown
        ? 'the file store could not be reached for several minutes (the operators have been told)'
        : "processing was tried several times and stopped each time on the service's side (logged for its operators)",
    ]);
  }
}
