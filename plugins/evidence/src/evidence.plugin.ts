import { ACCOUNT_DELETED_HOOKS, ContainerModule, contribute, definePlugin, EVENT_LISTENERS, isBlobStoreOutage, onEvent, type JobSpec } from '@filigrane/plugin-api';
import { WEBHOOK_EVENT_TYPES } from '@filigrane/plugin-webhooks';
import { EvidenceAccountSettings, EvidenceKey, EvidencePack } from './evidence.entities.js';
import { EvidenceBuildHeartbeat1795900000000, EvidenceInit1795642745777 } from './evidence.migration.js';
import { EvidenceResolver } from './evidence.resolver.js';
import { EvidenceEventsResolver } from './evidence-events.resolver.js';
import { evidenceRoutes } from './evidence.routes.js';
import { EVIDENCE_SERVICE } from './evidence-service.js';
import { BUILD_QUEUE, EvidencePackService, RECOVER_QUEUE } from './evidence.service.js';
import { EVIDENCE_SETTINGS } from './evidence.settings.js';
import { PackBuilder } from './pack-builder.service.js';
import { SigningKeyService } from './signing-key.service.js';

/** Evidence packs: signed, time-stamped WACZ files of matches (issue 21, item 3). */
export const evidencePlugin = definePlugin({
  id: 'evidence',
  pluginApi: '^1.4.0',
  requires: ['matches', 'media', 'webhooks'],
  settings: EVIDENCE_SETTINGS,
  entities: [EvidencePack, EvidenceKey, EvidenceAccountSettings],
  migrations: [EvidenceInit1795642745777, EvidenceBuildHeartbeat1795900000000],
  bindings: new ContainerModule(({ bind }) => {
    bind(SigningKeyService).toSelf().inSingletonScope();
    bind(PackBuilder).toSelf().inSingletonScope();
    bind(EvidencePackService).toSelf().inSingletonScope();
    bind(EVIDENCE_SERVICE).toService(EvidencePackService);
  }),
  routes: evidenceRoutes,
  resolvers: [EvidenceResolver, EvidenceEventsResolver],
  jobs: (container): JobSpec<never>[] =>
    [
      {
        queue: BUILD_QUEUE,
        handler: async (data: { packId: string }) => container.get(EvidencePackService).build(data.packId),
        onFinalFailure: (data: { packId: string }, failure) => container.get(EvidencePackService).abandon(data.packId, isBlobStoreOutage(failure)),
      },
      // Builds whose worker died (kill -9, out of memory) are queued again once their heartbeat is stale.
      { queue: RECOVER_QUEUE, schedule: '* * * * *', handler: async () => container.get(EvidencePackService).recover() },
    ] as JobSpec<never>[],
  async onStart(ctx) {
    // After a restart (kill -9 included), builds left half done are taken over without waiting for the schedule.
    await ctx.container.get(EvidencePackService).recover().catch((err: Error) => ctx.logger.warn(`evidence: recovering builds failed: ${err.message}`));
  },
  contributions: [
    contribute(WEBHOOK_EVENT_TYPES, () => ['evidence.captured']),
    contribute(EVENT_LISTENERS, (container) =>
      onEvent('match.created', async (event) => {
        await container.get(EvidencePackService).captureAutomatically(event.accountId, String(event.data.id));
      }),
    ),
    contribute(ACCOUNT_DELETED_HOOKS, (container) => (accountId: number) => container.get(EvidencePackService).forgetAccount(accountId)),
  ],
});
