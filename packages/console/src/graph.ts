// The console's view of the graph's matches, in one place: the selection asked for and the shape
// the screens use, whatever the graph's Match looks like.

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

const MATCH_FIELDS = 'id dateCreated watermarked tags export sessions site { domain name country } page { url headline image { url } } media { id path thumbnail image } region { copy original }';
/** The selection of a Match the screens use. */
export const MATCH_SELECTION = `{ ${MATCH_FIELDS} }`;
/** The same with its review state (the review plugin's Match.review, read once per request for a whole page). */
export const REVIEWED_MATCH_SELECTION = `{ ${MATCH_FIELDS} review { state } }`;

type Raw = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Either the REST object (snake_case) or a typed Match (camelCase). */
export function matchView(r: Raw): MatchView {
  const page = r.page ?? {};
  const media = r.media ?? null;
  return {
    id: String(r.id),
    dateCreated: r.dateCreated ?? r.date_created,
    watermarked: Boolean(r.watermarked),
    tags: r.tags ?? [],
    export: r.export ?? true,
    sessions: r.sessions ?? [],
    site: r.site ? { domain: r.site.domain ?? null, name: r.site.name ?? null, country: r.site.country ?? null } : null,
    page: { url: page.url ?? null, imageUrl: page.image?.url ?? null, headline: page.headline ?? null },
    media: media && { id: String(media.id), path: media.path, thumbnail: media.thumbnail, image: media.image },
    region: r.region ?? null,
  };
}

/** The graph's MatchFilter (operators per field), as far as the console uses it. */
export interface MatchFilterInput {
  siteDomain?: { equals: string };
  watermarked?: { equals: boolean };
  dateCreated?: { gte?: string; lte?: string; lt?: string };
  tags?: { in: string[] };
  mediaPath?: { startsWith: string };
  reviewState?: { equals: string };
}

/** Review states (the review plugin), with the key that sets each in the side-by-side view. */
export const REVIEW_STATES = [
  { state: 'NEW', key: 'n' },
  { state: 'UNSURE', key: 'u' },
  { state: 'LICENSED', key: 'l' },
  { state: 'INFRINGING', key: 'i' },
  { state: 'NOT_A_MATCH', key: 'x' },
  { state: 'IGNORED', key: 'g' },
] as const;
export type ReviewState = (typeof REVIEW_STATES)[number]['state'];
