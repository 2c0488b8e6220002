// A third-party tracking source, written only against @filigrane/plugin-api: it contributes a
// TrackingSource and feeds sightings posted to its own route into the match pipeline (its token).
// Loaded by configuration: FILIGRANE_PLUGINS=./examples/feed-source (docs/plugins.md walks through it).
import {
  ApiError,
  badRequest,
  contribute,
  created,
  defineSettings,
  definePlugin,
  setting,
  TOKENS,
  TRACKING_SOURCES,
  type MatchPipeline,
  type SettingValues,
  type TrackingSource,
} from '@filigrane/plugin-api';

const source: TrackingSource = { id: 'partner-feed', description: 'Sightings posted by a partner feed' };

/** The plugin's own settings: typed, validated at boot, listed by `filigrane settings`. */
export const FEED_SETTINGS = defineSettings('partner-feed', {
  maxImageBytes: setting.integer({ env: 'PARTNER_FEED_MAX_IMAGE_BYTES', default: 16 * 1024 * 1024, min: 1, description: 'Largest image (bytes, decoded) one posted sighting may carry' }),
});
type FeedSettings = SettingValues<typeof FEED_SETTINGS.specs>;

export const feedSourcePlugin = definePlugin({
  id: 'partner-feed',
  pluginApi: '^1.1.0',
  requires: ['search'],
  settings: FEED_SETTINGS,
  contributions: [contribute(TRACKING_SOURCES, () => source)],
  routes: [
    {
      versions: ['v4'],
      method: 'POST',
      path: '/partner-feed/sightings/',
      summary: 'Hand one sighting (image as a data URI, page URL) to the match pipeline',
      requestSchema: {
        type: 'object',
        required: ['image'],
        properties: {
          image: { type: 'string', description: 'The image as a data URI' },
          page_url: { type: 'string', format: 'uri' },
          image_url: { type: 'string' },
          session_id: { type: 'integer' },
          credit: { type: 'string' },
          last_modified: { type: 'string', format: 'date-time' },
        },
      },
      async handler(ctx) {
        const body = (ctx.body ?? {}) as { image?: string; page_url?: string; image_url?: string; session_id?: number; credit?: string; last_modified?: string };
        if (typeof body.image !== 'string' || !body.image.startsWith('data:')) throw badRequest('invalid', 'image must be a data URI.');
        const bytes = Buffer.from(body.image.slice(body.image.indexOf(',') + 1), 'base64');
        const { maxImageBytes } = ctx.container.get<FeedSettings>(FEED_SETTINGS.token);
        if (bytes.length > maxImageBytes) throw new ApiError(413, 'too_large', `The image is larger than ${maxImageBytes} bytes.`);
        const matches = await ctx.container.get<MatchPipeline>(TOKENS.MatchPipeline).submit({
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
