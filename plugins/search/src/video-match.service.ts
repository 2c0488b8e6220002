import { inject, injectable } from 'inversify';
import { TOKENS, type MediaReader, type MediaRecord } from '@filigrane/core';
import { fingerprintPool, framesInFlight, type VisualFingerprint } from '@filigrane/vision';
import { alignHits, decodeTimeoutMs, pipelined, sampleFrames, SLOTS_PER_SECOND, VIDEO_FAST_THRESHOLD, VIDEO_FPS, VIDEO_SIDE, type Alignment, type Frame, type FrameHit, type VideoInfo } from '@filigrane/video';
import { keyFrame, VisualIndexService } from './visual-index.service.js';

/** Query frames are sampled at the registered videos' rate, so offsets are found to half a frame. */
export const QUERY_FPS = VIDEO_FPS;
/**
 * Index votes a query frame needs on a registered frame, as a share of the query frame's features
 * (measured: copies get 0.1-0.2, unrelated footage up to 0.05), with a floor for feature-poor frames.
 */
const FRAME_VOTES = { share: 0.06, floor: 12 };
/** A single still image has nothing else to confirm it: a higher bar. */
const STILL_VOTES = { share: 0.08, floor: 20 };
/** Query frames that must agree on one time offset for a video match: at least 3, and 30% of the query's. */
const MIN_ALIGNED_FRAMES = 3;
const MIN_ALIGNED_SHARE = 0.3;
/** Candidates read per query frame. */
const PER_FRAME = 12;

export interface VideoMatch {
  media: MediaRecord;
  alignment: Alignment;
}

const within = (path: string, root?: string) => !root || path === root || path.startsWith(`${root}/`);

/**
 * Where registered videos appear in a query video (or a still image): each query frame's votes in
 * the account's visual index (videos are indexed frame by frame), then temporal alignment of the
 * hits; a mirrored copy is looked for when the straight pass finds nothing.
 */
@injectable()
export class VideoMatchService {
  constructor(
    @inject(TOKENS.MediaReader) private readonly mediaReader: MediaReader,
    @inject(VisualIndexService) private readonly index: VisualIndexService,
  ) {}

  /** Registered video frames a fingerprint votes for (frame keys only; still images are identification's). */
  async frameHits(accountId: number, fp: VisualFingerprint, queryTime: number, bar = FRAME_VOTES): Promise<FrameHit[]> {
    const minVotes = Math.max(bar.floor, Math.round(bar.share * fp.features.count));
    const { voted } = await this.index.candidates(accountId, fp, PER_FRAME);
    return voted
      .filter((c) => c.id < 0 && c.votes >= minVotes)
      .map((c) => {
        const { mediaId, frame } = keyFrame(c.id);
        return { mediaId, queryTime, matchedTime: frame / SLOTS_PER_SECOND, score: c.votes };
      });
  }

  async matchVideo(accountId: number, file: string, info: VideoInfo, options: { searchPath?: string; maxFrames?: number } = {}): Promise<VideoMatch[]> {
    // Both readings always: a mirrored copy of a near-symmetric or static scene also aligns
    // straight, at a wrong offset; per video the reading with more index votes wins.
    const best = new Map<number, Alignment>();
    for (const mirror of [false, true]) {
      const hits: FrameHit[] = [];
      let frames = 0;
      const sampled = sampleFrames(file, { fps: QUERY_FPS, scenes: true, side: VIDEO_SIDE, width: info.width, height: info.height, mirror, maxFrames: options.maxFrames, timeoutMs: decodeTimeoutMs(info.duration) });
      const describe = async (f: Frame) => this.frameHits(accountId, await fingerprintPool().fingerprint(f, { fastThreshold: VIDEO_FAST_THRESHOLD }), f.time);
      for await (const frameHits of pipelined(sampled, describe, framesInFlight())) {
        hits.push(...frameHits);
        frames++;
      }
      // Unrelated footage gathers a few chance hits; a copy agrees over a good part of its length.
      const minFrames = Math.max(MIN_ALIGNED_FRAMES, Math.ceil(MIN_ALIGNED_SHARE * frames));
      for (const a of alignHits(hits, { frameSpan: 1 / QUERY_FPS, minFrames })) {
        if ((best.get(a.mediaId)?.votes ?? -1) < a.votes) best.set(a.mediaId, a);
      }
    }
    return this.withMedia(accountId, [...best.values()].sort((a, b) => b.frames - a.frames || b.votes - a.votes), options.searchPath);
  }

  /** The best frame of each registered video a still image shows (a frame grab), with its time. */
  async matchStill(accountId: number, fp: VisualFingerprint, searchPath?: string): Promise<VideoMatch[]> {
    const hits = await this.frameHits(accountId, fp, 0, STILL_VOTES);
    const best = new Map<number, FrameHit>();
    for (const h of hits) if ((best.get(h.mediaId)?.score ?? -1) < h.score) best.set(h.mediaId, h);
    const span = 1 / VIDEO_FPS;
    const aligned: Alignment[] = [...best.values()].map((h) => ({
      mediaId: h.mediaId,
      offset: h.matchedTime,
      query: { start: 0, end: 0, duration: 0 },
      matched: { start: h.matchedTime, end: h.matchedTime + span, duration: span },
      frames: 1,
      score: h.score,
      votes: h.score,
    }));
    return this.withMedia(accountId, aligned.sort((a, b) => b.score - a.score), searchPath);
  }

  /** Alignments whose video still exists, belongs to the account and lies under the search path. */
  private async withMedia(accountId: number, aligned: Alignment[], searchPath?: string): Promise<VideoMatch[]> {
    if (!aligned.length) return [];
    const rows = await this.mediaReader.byIds(aligned.map((a) => a.mediaId), accountId);
    const media = new Map(rows.filter((m) => m.type === 'video' && within(m.path, searchPath)).map((m) => [m.id, m]));
    return aligned.filter((a) => media.has(a.mediaId)).map((a) => ({ media: media.get(a.mediaId)!, alignment: a }));
  }
}
