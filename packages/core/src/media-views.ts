// The spec's views of registered media (Image, Video, Media objects and file URLs), shared by every
// plugin that shows media in its answers. They read a MediaRecord, never the media plugin's entity.
import type { MediaRecord } from './media-reader.js';

/** A media path with each name percent-encoded, as it appears in a URL. */
export function encodeMediaPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** URLs of a media's files, served with the same credentials as the API. */
export const fileUrl = (baseUrl: string, id: number, file: 'thumbnail' | 'image' | 'registration' | 'stream') => `${baseUrl}/api/v4/media-files/${id}/${file}`;
export const mediaUrl = (baseUrl: string, path: string) => `${baseUrl}/api/v4/media${encodeMediaPath(path)}`;

type ImageFields = Pick<MediaRecord, 'id' | 'width' | 'height' | 'format' | 'credit' | 'path'>;
type VideoFields = Pick<MediaRecord, 'id' | 'width' | 'height' | 'format' | 'duration' | 'processing' | 'processingError'>;

/** The spec's Image object of a registered media. */
export function imageView(m: ImageFields, baseUrl: string) {
  return {
    url: fileUrl(baseUrl, m.id, 'image'),
    type: 'registered' as const,
    width: m.width,
    height: m.height,
    format: m.format,
    thumbnail: fileUrl(baseUrl, m.id, 'thumbnail'),
    credit: m.credit,
    media_path: m.path,
    media_url: mediaUrl(baseUrl, m.path),
  };
}

/**
 * The spec's Video object of a registered (non-watermarked) video; `status` says whether its
 * fingerprinting is done (pending, ready, failed: only ready videos are found by searches).
 */
export function videoView(m: VideoFields, baseUrl: string) {
  return {
    url: fileUrl(baseUrl, m.id, 'image'),
    type: 'registered' as const,
    width: m.width,
    height: m.height,
    thumbnail: fileUrl(baseUrl, m.id, 'thumbnail'),
    duration: m.duration,
    format: m.format,
    // The stored file as uploaded (no transcoding), served with HTTP Range so players can seek.
    streaming_url: fileUrl(baseUrl, m.id, 'stream'),
    status: m.processing,
    ...(m.processingError ? { error: m.processingError } : {}),
  };
}

/** The spec's Media object (without folder children). */
export function mediaView(m: Omit<MediaRecord, 'accountId' | 'name' | 'kind' | 'pixelHash'>, baseUrl: string): Record<string, unknown> {
  const view: Record<string, unknown> = {
    url: mediaUrl(baseUrl, m.path),
    path: m.path,
    created: m.created.toISOString(),
    disk_usage: m.diskUsage,
    type: m.type,
    thumbnail: m.type === 'folder' ? null : fileUrl(baseUrl, m.id, 'thumbnail'),
    metadata: m.metadata,
  };
  if (m.type === 'image') {
    view.image = imageView(m, baseUrl);
    // Exclusivity is unknown unless set: the spec says absent means unknown.
    if (m.exclusive !== null) view.exclusive = m.exclusive;
  }
  if (m.type === 'video') view.video = videoView(m, baseUrl);
  return view;
}
