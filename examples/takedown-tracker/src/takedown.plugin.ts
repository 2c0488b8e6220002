// A third-party plugin written only against @filigrane/plugin-api: its own table (entity and
// migration), a listener of match.created (typed payload), a scheduled job using the clock,
// REST routes, and an account-deleted hook. Loaded with FILIGRANE_PLUGINS=./examples/takedown-tracker.
import { ACCOUNT_DELETED_HOOKS, ContainerModule, contribute, definePlugin, EVENT_LISTENERS, ok, onEvent, accepted, type JobSpec } from '@filigrane/plugin-api';
import { TakedownRequest } from './takedown.entity.js';
import { TakedownInit1767225700000 } from './takedown.migration.js';
import { TakedownService } from './takedown.service.js';
import { TAKEDOWN_SETTINGS, type TakedownSettings } from './takedown.settings.js';

export const OVERDUE_QUEUE = 'takedown.flag-overdue';

const view = (r: TakedownRequest) => ({ id: r.id, page_url: r.pageUrl, match_id: r.matchId, status: r.status, opened_at: r.openedAt.toISOString() });

export const takedownPlugin = definePlugin({
  id: 'takedown',
  pluginApi: '^1.1.0',
  requires: ['matches'],
  settings: TAKEDOWN_SETTINGS,
  entities: [TakedownRequest],
  migrations: [TakedownInit1767225700000],
  bindings: new ContainerModule(({ bind }) => {
    bind(TakedownService).toSelf().inSingletonScope();
  }),
  routes: [
    {
      versions: ['v4'],
      method: 'POST',
      path: '/takedowns/',
      summary: 'Open a takedown request for a page',
      requestSchema: { type: 'object', required: ['page_url'], properties: { page_url: { type: 'string', format: 'uri' } } },
      async handler(ctx) {
        const request = await ctx.container.get(TakedownService).open(ctx.principal!.accountId, (ctx.body as { page_url?: unknown } | undefined)?.page_url);
        return accepted(view(request));
      },
    },
    {
      versions: ['v4'],
      method: 'GET',
      path: '/takedowns/',
      summary: "The account's takedown requests",
      handler: async (ctx) => ok({ next: null, previous: null, results: (await ctx.container.get(TakedownService).list(ctx.principal!.accountId)).map(view) }),
    },
  ],
  jobs: (container): JobSpec<never>[] => [
    { queue: OVERDUE_QUEUE, schedule: '0 * * * *', handler: async () => void (await container.get(TakedownService).flagOverdue()) },
  ],
  contributions: [
    contribute(EVENT_LISTENERS, (container) =>
      onEvent('match.created', async (event) => {
        if (!container.get<TakedownSettings>(TAKEDOWN_SETTINGS.token).autoOpen || !event.data.page_url) return;
        await container.get(TakedownService).open(event.accountId, event.data.page_url, event.data.id);
      }),
    ),
    contribute(ACCOUNT_DELETED_HOOKS, (container) => (accountId: number) => container.get(TakedownService).forgetAccount(accountId)),
  ],
});
