// Shapes of a match's evidence, public: sources and listeners read them in views and events.
/** The image as it was seen where it was found: the spec's Image object of type web (or press). */
export interface SightedImage {
  url: string | null;
  type: 'web' | 'press';
  width: number | null;
  height: number | null;
  format: string | null;
  thumbnail: string | null;
  credit: string | null;
  md5: string | null;
  /** First found. */
  crawl_date: string;
  page_url: string | null;
  last_modified_date: string | null;
}

export interface VideoAlignment {
  query: { start: number; end: number; duration: number };
  matched: { start: number; end: number; duration: number };
}
