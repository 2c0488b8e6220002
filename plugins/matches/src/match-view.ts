import { fileUrl, imageView, mediaView, videoView, type MediaRecord } from '@filigrane/core';
import type { MatchRow } from './match-query.service.js';

const iso = (d: Date | string) => new Date(d).toISOString();
/** The spec's v4 media types: image, video, other. */
const v4MediaType = (type: MediaRecord['type']) => (type === 'image' ? 'image' : type === 'video' ? 'video' : 'other');

/** The media of a v4 Match object. */
export function matchMediaV4(media: MediaRecord, baseUrl: string) {
  return {
    id: String(media.id),
    type: v4MediaType(media.type),
    thumbnail: fileUrl(baseUrl, media.id, 'thumbnail'),
    image: fileUrl(baseUrl, media.id, 'image'),
    path: media.path,
    date_registered: media.created.toISOString(),
    credit: media.credit,
    user_metadata: media.metadata,
  };
}

/** The v4 Match object (v4 lists media matches only; a credit match has no media). */
export function matchV4(r: MatchRow, media: MediaRecord | null, baseUrl: string): Record<string, unknown> {
  const page = r.page as Record<string, unknown>;
  return {
    id: String(r.id),
    url: `${baseUrl}/api/v4/matches/${r.id}/`,
    date_created: iso(r.date_created),
    date_updated: iso(r.date_updated),
    export: r.export,
    watermarked: r.watermarked,
    tags: r.tags,
    sessions: r.sessions,
    media: media && matchMediaV4(media, baseUrl),
    site: r.site_id === null ? null : { id: r.site_id, name: r.site_name, domain: r.site_domain, suffix: r.site_suffix || null, country: r.site_country },
    page: {
      url: r.page_url || null,
      type: page.type ?? null,
      image: { url: r.query_url || null },
      headline: page.headline ?? null,
      description: page.description ?? null,
      author: page.author ?? null,
      date_modified: page.date_modified ?? null,
      date_published: page.date_published ?? null,
    },
  };
}

/**
 * The v3 web, press and credit match objects. Their `image` is the image as it was seen (type web
 * or press); matches recorded before sighted images were kept show the registered image.
 */
export function matchV3(r: MatchRow, media: MediaRecord | null, baseUrl: string): Record<string, unknown> {
  const common = { id: Number(r.id), url: `${baseUrl}/api/v3/matches/${r.kind}/${r.id}/`, created: iso(r.date_created), type: r.kind };
  const image = r.image ?? (media ? imageView(media, baseUrl) : null);
  if (r.kind === 'credit' || !media) return { ...common, credit: r.credit, image_url: r.query_url || null, page_url: r.page_url || null, image };
  const paths = [mediaView(media, baseUrl)];
  if (r.kind === 'press') {
    return { ...common, watermarked: r.watermarked, issue: { name: r.press?.issueName ?? null, date: r.press?.issueDate ?? null }, page_number: r.press?.pageNumber ?? null, paths, image };
  }
  const web: Record<string, unknown> = {
    ...common,
    watermarked: r.watermarked,
    query_url: r.query_url || null,
    query_width: r.query_width,
    query_height: r.query_height,
    query_page_url: r.page_url || null,
    paths,
    session_id: r.sessions.length ? r.sessions[r.sessions.length - 1] : null,
    domain: r.host,
    query_format: r.query_format,
    image,
  };
  if (r.video && media.type === 'video') {
    // Video matches: the registered Video object and where the copy lies in both videos.
    delete web.query_format;
    delete web.image;
    web.video = videoView(media, baseUrl);
    web.query_video_start_time = r.video.query.start;
    web.query_video_end_time = r.video.query.end;
    web.query_video_match_duration = r.video.query.duration;
    web.matched_video_start_time = r.video.matched.start;
    web.matched_video_end_time = r.video.matched.end;
    web.matched_video_match_duration = r.video.matched.duration;
  }
  if (r.exclusive !== null) web.exclusive = r.exclusive;
  return web;
}

/** The media fields a v4 CSV row shows (read without the ORM for exports). */
export type MediaCsvFields = Pick<MediaRecord, 'id' | 'type' | 'path' | 'created' | 'credit'>;

const listCell = (v: unknown[] | null) => (v && v.length ? v.join(',') : null);
const orNull = (v: unknown) => (v === undefined ? null : v);

/**
 * The cells of a v4 match in the CSV's column order (COLUMNS.v4 of match-csv.ts), straight from its row: the
 * same as flattening matchV4 (a unit test holds them equal), without building it for every row.
 */
export function matchV4Cells(r: MatchRow, m: MediaCsvFields | null, baseUrl: string): unknown[] {
  const page = r.page as Record<string, unknown>;
  const site = r.site_id !== null;
  return [
    String(r.id), `${baseUrl}/api/v4/matches/${r.id}/`, iso(r.date_created), iso(r.date_updated), r.export, r.watermarked, listCell(r.tags), listCell(r.sessions),
    m && String(m.id), m && v4MediaType(m.type), m && m.path,
    m && fileUrl(baseUrl, m.id, 'thumbnail'), m && fileUrl(baseUrl, m.id, 'image'), m && new Date(m.created).toISOString(), m && m.credit,
    site ? r.site_id : null, site ? r.site_name : null, site ? r.site_domain : null, site ? r.site_suffix || null : null, site ? r.site_country : null,
    r.page_url || null, orNull(page.type), r.query_url || null, orNull(page.headline), orNull(page.description), orNull(page.author),
    orNull(page.date_modified), orNull(page.date_published),
  ];
}
