import type { CsvExport, RouteContext } from '@filigrane/core';
import type { MatchFilters } from './match-filters.js';
import { MatchQueryService } from './match-query.service.js';
import { matchV3, matchV4 } from './match-view.js';

/** CSV columns (dotted paths into the objects; metadata objects and media lists left out). */
const IMAGE = ['image.url', 'image.type', 'image.width', 'image.height', 'image.format', 'image.credit', 'image.page_url', 'image.crawl_date'];
const COLUMNS = {
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
  const view = version === 'v4' ? matchV4 : matchV3;
  const batches = service.exportBatches(ctx.principal!.accountId, filters, version === 'v4');
  const name = version === 'v4' ? 'matches' : `${filters.kind}-matches`;
  return {
    filename: `${name}-${new Date().toISOString().slice(0, 10)}.csv`,
    columns: COLUMNS[version === 'v4' ? 'v4' : filters.kind!],
    batches: (async function* () {
      for await (const rows of batches) yield await service.views(rows, view, ctx.baseUrl);
    })(),
  };
}
