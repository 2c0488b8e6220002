import { fileUrl, mediaUrl } from '@filigrane/core';
import type { AggregationDef } from './aggregation-catalog.js';
import type { AggregationRow, ExportRow } from './aggregation-query.service.js';

const iso = (d: Date | string) => new Date(d).toISOString();
const TYPES: Record<string, number> = { video: 1, image: 2 };

/** The v3 aggregation object: the spec's common fields, then the group's own. */
export function aggregationView(def: AggregationDef, r: AggregationRow, baseUrl: string): Record<string, unknown> {
  const mediaId = r.media_id === null ? null : Number(r.media_id);
  const view: Record<string, unknown> = {
    _id: String(r.id),
    _version: r.version,
    group: r.account_id,
    type: def.name === 'group-path' ? (TYPES[r.media_type ?? ''] ?? 0) : Number(def.typeSql),
    created: iso(r.created),
    updated: iso(r.updated),
    export: r.export,
    deleted: false,
    tags: r.tags,
    url: `${baseUrl}/api/v3/aggregations/${def.name}/${r.id}/`,
    path: r.media_path,
    media:
      mediaId === null || r.media_path === null
        ? null
        : {
            id: String(mediaId),
            type: r.media_type === 'image' || r.media_type === 'video' ? r.media_type : 'other',
            url: mediaUrl(baseUrl, r.media_path),
            thumbnail: fileUrl(baseUrl, mediaId, 'thumbnail'),
          },
  };
  if (def.site) {
    view.site = r.site_id === null ? null : { id: r.site_id, name: r.site_name, domain: r.site_domain, suffix: r.site_suffix || null, country: r.site_country };
  }
  if (def.page) view.page_url = r.page_url;
  Object.assign(view, {
    match_count: r.match_count,
    watermarked_count: r.watermarked_count,
    web_count: r.web_count,
    press_count: r.press_count,
    credit_count: r.credit_count,
    video_count: r.video_count,
    first_seen: iso(r.first_seen),
    last_seen: iso(r.last_seen),
    sessions: r.sessions,
    matches: matchesLink(def, r, baseUrl),
  });
  return view;
}

/**
 * One CSV row of the object, in `csvColumns(def)` order, built straight from the database row: what
 * `aggregationView` then flattening would give (a test holds them equal), without the objects.
 */
export function aggregationCells(def: AggregationDef, r: ExportRow, baseUrl: string): unknown[] {
  const hasMedia = r.media_id !== null && r.media_path !== null;
  const list = (l: unknown[]) => (l.length ? l.join(',') : null);
  const cells: unknown[] = [
    String(r.id),
    r.version,
    r.account_id,
    def.name === 'group-path' ? (TYPES[r.media_type ?? ''] ?? 0) : Number(def.typeSql),
    r.created,
    r.updated,
    r.export,
    false,
    list(r.tags),
    r.media_path,
    hasMedia ? String(Number(r.media_id)) : null,
    hasMedia ? (r.media_type === 'image' || r.media_type === 'video' ? r.media_type : 'other') : null,
    hasMedia ? mediaUrl(baseUrl, r.media_path!) : null,
  ];
  if (def.site) {
    if (r.site_id === null) cells.push(null, null, null, null, null);
    else cells.push(r.site_id, r.site_name, r.site_domain, r.site_suffix || null, r.site_country);
  }
  if (def.page) cells.push(r.page_url);
  cells.push(r.match_count, r.watermarked_count, r.web_count, r.press_count, r.credit_count, r.video_count, r.first_seen, r.last_seen, list(r.sessions));
  cells.push(`${baseUrl}/api/v3/aggregations/${def.name}/${r.id}/`);
  return cells;
}

/**
 * The listing of the group's matches: v4 for a media's matches (v4 leaves credit matches out), the
 * v3 credit listing for the group of credit lines found without a registered media.
 */
function matchesLink(def: AggregationDef, r: AggregationRow, baseUrl: string): string {
  if (r.media_id === null) return `${baseUrl}/api/v3/matches/credit/`;
  const q = new URLSearchParams();
  q.set('media.id', String(r.media_id));
  if (def.site) {
    if (r.site_id === null) q.set('site.id__isnull', 'true');
    else q.set('site.id', String(r.site_id));
  }
  if (def.page && r.page_url) q.set('page.url', r.page_url);
  return `${baseUrl}/api/v4/matches/?${q.toString()}`;
}
