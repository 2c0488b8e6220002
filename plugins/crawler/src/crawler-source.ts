import type { TrackingSource } from '@filigrane/core';

/** The crawler as a tracking source (its id names the matches it records); it submits through TOKENS.MatchPipeline. */
export const crawlerSource: TrackingSource = {
  id: 'crawler',
  description: 'Web crawler: images found on crawled sites',
};
