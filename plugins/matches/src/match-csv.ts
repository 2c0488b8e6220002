import type { CsvExport, RouteContext } from '@filigrane/core';
import type { MatchFilters } from './match-filters.js';
import { MatchQueryService, type MatchRow } from './match-query.service.js';
import { matchV3, matchV4Cells, type MediaCsvFields } from './match-view.js';

/** CSV columns (dotted paths into the objects; metadata objects and media lists left out). */
const IMAGE = ['image.url', 'image.type', 'image.width', 'image.height', 'image.format', 'image.credit', 'image.page_url', 'image.crawl_date'];
export const COLUMNS = {
  v4: [
    'id', 'url', 'date_created', 'date_updated', 'export', 'watermarked', 'tags', 'sessions',
    'media.id', 'media.type', 'media.path', 'media.thumbnail', 'media.image', 'media.date_registered', 'media.credit',
    'site.id', 'site.name', 'site.domain', 'site.suffix', 'site.country',
    'page.url', 'page.type', 'page.image.url', 'page.headline', 'page.description', 'page.author', 'page.date_modified', 'page.date_published',
  ],
  web: [
    'id', 'url', 'created', 'type', 'watermarked', 'exclusive', 'query_url', 'query_width', 'query_height', 'query_page_url', 'session_id', 'domain',
    'query_format', ...IMAGE,
  ],
  press: ['id', 'url', 'created', 'type', 'watermarked', 'issue.name', 'issue.date', 'page_number', ...IMAGE],
  credit: ['id', 'url', 'created', 'type', 'credit', 'image_url', 'page_url', ...IMAGE],
};

/**
 * format=csv of a match listing: every match for the filters (not one page), streamed in batches;
 * v4 rows are those with export true (v3 objects carry no export flag).
 */
export function matchesCsv(ctx: RouteContext, filters: MatchFilters, version: 'v3' | 'v4'): CsvExport {
  const service = ctx.container.get(MatchQueryService);
  const accountId = ctx.principal!.accountId;
  const batches = service.exportBatches(accountId, filters, version === 'v4');
  const filename = `${version === 'v4' ? 'matches' : `${filters.kind}-matches`}-${new Date().toISOString().slice(0, 10)}.csv`;
  if (version === 'v3') {
    return {
      filename,
      columns: COLUMNS[filters.kind!],
      batches: (async function* () {
        for await (const rows of batches) yield await service.views(rows, matchV3, ctx.baseUrl);
      })(),
    };
  }
  // v4: cells straight from the rows and a few media columns (no view object per row, no ORM).
  type V4Row = { row: MatchRow; media: MediaCsvFields };
  return {
    filename,
    columns: COLUMNS.v4,
    batches: (async function* () {
      for await (const rows of batches) {
        const media = await service.csvMedia(accountId, rows);
        const kept: V4Row[] = [];
        // A match whose media was deleted meanwhile is left out, as in the listing.
        for (const row of rows) if (row.media_id !== null && media.has(Number(row.media_id))) kept.push({ row, media: media.get(Number(row.media_id))! });
        yield kept as unknown as Record<string, unknown>[];
      }
    })(),
    cells: (obj) => {
      const { row, media } = obj as unknown as V4Row;
      return matchV4Cells(row, media, ctx.baseUrl);
    },
  };
}
