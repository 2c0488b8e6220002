import type { MatchPipeline, TrackingSource } from '@filigrane/core';

/** The crawler as a tracking source: started with the match pipeline it hands its sightings to. */
class CrawlerSource implements TrackingSource {
  readonly id = 'crawler';
  readonly description = 'Web crawler: images found on crawled sites';
  pipeline: MatchPipeline | null = null;
  async start(pipeline: MatchPipeline): Promise<void> {
    this.pipeline = pipeline;
  }
  async stop(): Promise<void> {
    this.pipeline = null;
  }
}

export const crawlerSource = new CrawlerSource();
