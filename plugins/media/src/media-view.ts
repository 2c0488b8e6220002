import type { Media } from './media.entity.js';
import { encodePath } from './media-path.js';

/** URLs of a media's files, served with the same credentials as the API. */
export const fileUrl = (baseUrl: string, id: number, file: 'thumbnail' | 'image' | 'registration' | 'stream') => `${baseUrl}/api/v4/media-files/${id}/${file}`;
export const mediaUrl = (baseUrl: string, path: string) => `${baseUrl}/api/v4/media${encodePath(path)}`;

/** The spec's Image object of a registered media. */
export function imageView(m: Media, baseUrl: string) {
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
export function videoView(m: Media, baseUrl: string) {
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
export function mediaView(m: Media, baseUrl: string): Record<string, unknown> {
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
