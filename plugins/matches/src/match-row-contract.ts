/**
 * The `matches` row as other plugins' statement triggers may read it (the aggregations plugin keeps
 * its groups with AFTER INSERT/UPDATE/DELETE triggers over `matches` transition tables, typed as
 * `matches[]`). These columns, their types and the write pattern below are matches' public contract,
 * held by matches' own test (match-row-contract.test.ts): renaming or retyping one is a breaking
 * change of this plugin. Any other column may change without notice.
 *
 * Write pattern: one match write is one statement (INSERT ... ON CONFLICT DO UPDATE), so a new match
 * fires the INSERT triggers and a repeated sighting the UPDATE triggers, never moving the match to
 * other groups (account, media, site, page and query URLs and kind are kept); deleting a media or an
 * account deletes its matches (DELETE triggers, by cascade).
 */
export const MATCH_ROW_CONTRACT = {
  id: 'bigint',
  account_id: 'integer',
  media_id: 'bigint',
  kind: 'text',
  watermarked: 'boolean',
  sessions: 'ARRAY',
  site_id: 'integer',
  page_url: 'text',
  query_url: 'text',
  video: 'jsonb',
  date_created: 'timestamp with time zone',
  date_updated: 'timestamp with time zone',
} as const;

export type MatchRowColumn = keyof typeof MATCH_ROW_CONTRACT;
