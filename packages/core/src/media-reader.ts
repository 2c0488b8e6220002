// The read-only media interface: what other plugins (search, press, matches, ...) read of the media tree.
// Owned and bound by the media plugin; its table, entity and blob layout stay private to it.
import type { Principal } from './request-context.js';

export type MediaNodeType = 'folder' | 'image' | 'video' | 'document';

/** A registered media (or folder) as others may see it: no key, no storage detail. */
export interface MediaRecord {
  id: number;
  accountId: number;
  path: string;
  name: string;
  type: MediaNodeType;
  created: Date;
  diskUsage: number;
  metadata: Record<string, string | boolean>;
  exclusive: boolean | null;
  /** watermarked: registered from a registration file (detection applies); plain: similarity only. */
  kind: 'watermarked' | 'plain' | null;
  width: number | null;
  height: number | null;
  format: string | null;
  credit: string | null;
  duration: number | null;
  processing: 'pending' | 'ready' | 'failed' | null;
  processingError: string | null;
  /** SHA-256 of the original's decoded pixels: equal for the transactional copies of one picture. */
  pixelHash: Buffer | null;
}

/** The reduced original kept at registration (16-bit luma), what detection registers a query to. */
export interface ReducedOriginalPixels {
  width: number;
  height: number;
  luma: Uint16Array;
}

/** What watermark detection needs of a watermarked media: its key (opened) and embedding parameters. */
export interface MediaKeyReference {
  key: Buffer;
  params: Record<string, number>;
}

export interface MediaReader {
  /** The media with these ids (of this account when given); missing ids are absent from the answer. */
  byIds(ids: number[], accountId?: number): Promise<MediaRecord[]>;
  /** The account's media with one of these pixel hashes, by id, at most `limit`. */
  byPixelHash(accountId: number, hashes: Buffer[], limit: number): Promise<MediaRecord[]>;
  /** The reduced original of a registered image (kept for every one); a missing file throws BlobMissingError (a server fault). */
  reducedOriginal(mediaId: number): Promise<ReducedOriginalPixels>;
  /** The key reference of a watermarked media; null for plain media. */
  keyReference(mediaId: number): Promise<MediaKeyReference | null>;
  /** The thumbnail JPEG shown for a registered media; a missing file throws BlobMissingError (a server fault). */
  thumbnail(mediaId: number): Promise<Buffer>;
  /** Distinct credit lines of the account's media (credit matching). */
  credits(accountId: number): Promise<string[]>;
}

/**
 * Bytes behind a URL a client gave: fetched through the SSRF-safe fetcher with the platform's
 * allow-list, or read locally when it is one of this service's own URLs; errors are API errors.
 */
export interface ClientUrlResolver {
  resolve(scope: { principal?: Principal | null; baseUrl: string }, url: string): Promise<Buffer>;
}
