// How videos are sampled for fingerprinting, registered and query alike: the media plugin (which
// fingerprints registered videos) and the search plugin (which fingerprints query videos) must agree.

/** Steady sampling rate (frames per second). */
export const VIDEO_FPS = 2;
/**
 * Long side of the sampled frames (pixels): ORB on 384 px costs 60% of 512 px, and a frame of a
 * video rarely carries more detail worth telling copies apart.
 */
export const VIDEO_SIDE = 384;
/** ORB's FAST threshold for video frames (see FingerprintOptions). */
export const VIDEO_FAST_THRESHOLD = 20;

/** Time limit of one decoding pass: 2 minutes plus the video's own length (at least 1x real time). */
export const decodeTimeoutMs = (seconds: number | null) => 120_000 + Math.ceil((seconds ?? 3600) * 1000);
