// A third-party tracking source, written only against packages/core: it contributes a
// TrackingSource and feeds sightings posted to its own route into the match pipeline.
// It touches no other plugin; docs/plugins.md ("Write a tracking source") shows it.
import { badRequest, contribute, created, definePlugin, TRACKING_SOURCES, type MatchPipeline, type TrackingSource } from '@filigrane/core';

class FeedSource implements TrackingSource {
  readonly id = 'test-feed';
  readonly description = 'Sightings posted by a partner feed';
  pipeline: MatchPipeline | null = null;

  async start(pipeline: MatchPipeline): Promise<void> {
    this.pipeline = pipeline;
  }

  async stop(): Promise<void> {
    this.pipeline = null;
  }
}

const source = new FeedSource();

export const feedSourcePlugin = definePlugin({
  id: 'test-feed',
  contributions: [contribute(TRACKING_SOURCES, () => source)],
  routes: [
    {
      versions: ['v4'],
      method: 'POST',
      path: '/test-feed/sightings/',
      summary: 'Hand one sighting (image as a data URI, page URL) to the match pipeline',
      async handler(ctx) {
        const body = (ctx.body ?? {}) as { image?: string; page_url?: string; image_url?: string; session_id?: number; credit?: string; last_modified?: string };
        if (typeof body.image !== 'string' || !body.image.startsWith('data:')) throw badRequest('invalid', 'image must be a data URI.');
        if (!source.pipeline) throw new Error('the feed source was not started');
        const bytes = Buffer.from(body.image.slice(body.image.indexOf(',') + 1), 'base64');
        const matches = await source.pipeline.submit({
          accountId: ctx.principal!.accountId,
          source: source.id,
          kind: 'web',
          image: { bytes, lastModified: body.last_modified ? new Date(body.last_modified) : undefined },
          imageUrl: body.image_url,
          credit: body.credit,
          page: body.page_url ? { url: body.page_url } : undefined,
          sessionId: body.session_id,
        });
        return created({ matches });
      },
    },
  ],
});
