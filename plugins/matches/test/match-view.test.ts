import test from 'ava';
import { csvCell, flattenObject } from '@filigrane/core';
import type { MediaRecord as Media } from '@filigrane/core';
import { COLUMNS } from '../src/match-csv.js';
import type { MatchRow } from '../src/match-query.service.js';
import { matchV4, matchV4Cells } from '../src/match-view.js';

const base = 'http://127.0.0.1:8000';
const media = { id: 7, type: 'image', path: '/acme/a,b "quoted".jpg', created: new Date('2026-01-02T03:04:05Z'), credit: '=cmd', metadata: { k: 'v' } } as unknown as Media;

function row(over: Partial<MatchRow>): MatchRow {
  return {
    id: '42', account_id: 1, media_id: '7', kind: 'web', watermarked: true, exclusive: null, export: true, tags: ['a', 'b'], sessions: [3],
    host: 'news.example', page_url: 'https://news.example/p', page: { type: 'article', headline: 'Hi, "there"', author: 'Ann', date_published: '2026-01-01' },
    query_url: 'https://news.example/i.jpg', query_width: 10, query_height: 10, query_format: 'jpeg', press: null, credit: null, image: null, video: null,
    date_created: new Date('2026-02-01T00:00:00Z'), date_updated: new Date('2026-02-02T00:00:00Z'),
    site_id: 5, site_name: 'Example', site_domain: 'example.com', site_suffix: 'com', site_country: null, ...over,
  };
}

test('v4 CSV cells equal the flattened v4 match, column by column, whatever is missing', (t) => {
  const rows = [
    row({}),
    row({ tags: [], sessions: [], site_id: null, site_name: null, site_domain: null, site_suffix: null, page: {}, page_url: '', query_url: '' }),
    row({ site_suffix: '', export: false, watermarked: false }),
  ];
  for (const r of rows) {
    for (const m of [media, { ...media, type: 'video' } as Media, null]) {
      const flat = flattenObject(matchV4(r, m, base));
      const expected = COLUMNS.v4.map((c) => csvCell(flat[c]));
      t.deepEqual(matchV4Cells(r, m, base).map(csvCell), expected);
    }
  }
});
