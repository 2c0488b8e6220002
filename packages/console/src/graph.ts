// The console's view of the graph's matches, in one place: the shape the screens use, from the
// MatchFields fragment (graphql/operations/matches.graphql).
import type { MatchFieldsFragment, MatchFilter, ReviewState } from './graphql/generated';

export interface MatchView {
  id: string;
  dateCreated: string;
  watermarked: boolean;
  tags: string[];
  export: boolean;
  sessions: number[];
  site: { domain: string | null; name: string | null; country: string | null } | null;
  page: { url: string | null; imageUrl: string | null; headline: string | null };
  media: { id: string; path: string; thumbnail: string; image: string } | null;
  /** Each image's outline in the other: x0, y0 ... x3, y3 in fractions of width and height. */
  region: { copy: number[]; original: number[] } | null;
}

export function matchView(r: MatchFieldsFragment): MatchView {
  const { page, media } = r;
  return {
    id: r.id,
    dateCreated: r.dateCreated,
    watermarked: r.watermarked,
    tags: r.tags,
    export: r.export,
    sessions: r.sessions,
    site: r.site,
    page: { url: page.url, imageUrl: page.image?.url ?? null, headline: page.headline },
    media,
    region: r.region,
  };
}

/** The graph's MatchFilter (operators per field). */
export type MatchFilterInput = MatchFilter;

/** Review states (the review plugin), with the key that sets each in the side-by-side view. */
export const REVIEW_STATES = [
  { state: 'NEW', key: 'n' },
  { state: 'UNSURE', key: 'u' },
  { state: 'LICENSED', key: 'l' },
  { state: 'INFRINGING', key: 'i' },
  { state: 'NOT_A_MATCH', key: 'x' },
  { state: 'IGNORED', key: 'g' },
] as const satisfies readonly { state: ReviewState; key: string }[];
export type { ReviewState };
