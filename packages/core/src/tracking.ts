import { createExtensionPoint } from './extension-point.js';

/**
 * A sighting: an image seen somewhere (a web page, a press issue, ...), handed by a tracking
 * source to the match pipeline, which identifies the registered originals it derives from,
 * validates the geometry, runs watermark detection and records (or updates) a match.
 */
export interface Sighting {
  accountId: number;
  /** Id of the tracking source (its plugin id). */
  source: string;
  kind: 'web' | 'press' | 'credit';
  /**
   * The image itself, or its URL (fetched through the SSRF-safe fetcher), and what the source
   * knows of the file: its Last-Modified date and its thumbnail, kept on the match as evidence.
   */
  image: {
    bytes?: Buffer;
    url?: string;
    lastModified?: Date;
    thumbnail?: string;
    /**
     * These bytes already prepared for identification (a `PreparedQuery` of @filigrane/vision):
     * a source submitting one image for many accounts (the press) decodes and describes it once.
     */
    prepared?: unknown;
  };
  /**
   * A video seen instead of an image (a `video`/`source` tag, a link to a video file): its frames
   * are aligned with the account's registered videos; `image` is then ignored.
   */
  video?: { bytes?: Buffer; url?: string };
  /** Where the image (or video) file lives on the web (the query URL). */
  imageUrl?: string;
  page?: {
    url: string;
    type?: string;
    headline?: string;
    description?: string;
    author?: string;
    datePublished?: Date;
    dateModified?: Date;
  };
  /** Derived from the page (or image) URL when absent. */
  site?: { domain?: string; name?: string; country?: string };
  seenAt?: Date;
  sessionId?: number;
  press?: { issueName: string; issueDate: string; pageNumber: number };
  /**
   * Credit line of the image (from its metadata, or printed next to it). When it names the
   * account, the pipeline records a credit match, whether or not the pixels match a media.
   */
  credit?: string;
  /** Only media at or below this path (default: the account's home). */
  searchPath?: string;
  /** Geometric models validation may use (default scale and perspective: copies found in the wild). */
  transforms?: ('scale' | 'affine' | 'perspective')[];
}

export interface SightingMatch {
  matchId: string;
  /** The kind of match recorded: the sighting's own kind, or credit. */
  kind: 'web' | 'press' | 'credit';
  /** null for a credit match (a credit line names the account; no media needed). */
  mediaId: number | null;
  watermarked: boolean;
  /** false when an existing match for the same image and page was updated. */
  created: boolean;
}

export interface SubmitOptions {
  /**
   * The result of an earlier submission of the same pixels for the same account (a picture printed
   * on several pages): recorded for this sighting without identifying the pixels again. The
   * sighting's own credit line is still checked; exclusivity is read from the media as usual.
   */
  reuse?: SightingMatch[];
}

/** The one way into matching: inject `TOKENS.MatchPipeline`. */
export interface MatchPipeline {
  /**
   * Identifies, validates, detects and records; returns the matches recorded (empty: none).
   * Throws, for this sighting only (a source catches per sighting and goes on):
   * - ApiError 400 `invalid_sighting`: neither image bytes nor a URL;
   * - a FetchFailure (`isFetchFailure(err)`, `err.code`: address_not_allowed, http_error, too_large,
   *   timeout...): the image URL could not be fetched;
   * - an Error named UnsupportedFormatError, CorruptImageError, ImageTooSmallError or
   *   ImageTooLargeError: the bytes are not a usable image (sides of at least 32 px, at most MAX_IMAGE_PIXELS);
   * anything else is a server fault (retry the job).
   */
  submit(sighting: Sighting, options?: SubmitOptions): Promise<SightingMatch[]>;
}

/**
 * A place to look for copies (crawler, press analysis, a customer's own feed): adding a source is
 * adding one plugin that contributes here. A source submits sightings through `TOKENS.MatchPipeline`
 * (injected like any service); `start`/`stop` are lifecycle hooks, run after every plugin started.
 */
export interface TrackingSource {
  id: string;
  description: string;
  /**
   * Called once everything is bound, before requests: begin watching (sources submit through the
   * `TOKENS.MatchPipeline` they inject). Since 1.3 it is called without an argument; a `start` that
   * declares a parameter (a source written against 1.0-1.1) still gets the pipeline, with a
   * deprecation warning, until plugin API 2.0.
   */
  start?(pipeline?: MatchPipeline): Promise<void>;
  stop?(): Promise<void>;
}

export const TRACKING_SOURCES = createExtensionPoint<TrackingSource>('core.tracking-sources');
