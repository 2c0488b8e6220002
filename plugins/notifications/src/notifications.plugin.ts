import { ContainerModule } from 'inversify';
import { ACCOUNT_DELETED_HOOKS, contribute, CORE_API_VERSION, definePlugin, EVENT_LISTENERS, type JobSpec } from '@filigrane/core';
import { MEDIA_EVENTS } from '@filigrane/plugin-media';
import { DIGEST_SECTIONS } from './digest-sections.js';
import { NotificationMatch, OutboxMessage } from './notification.entities.js';
import { NotificationService, SEND_QUEUE } from './notification.service.js';
import { MAILER } from './mailer.js';
import { NotificationsInit1764000010000 } from './notifications.migration.js';
import { NOTIFICATIONS_SETTINGS, type NotificationsSettings } from './notifications.settings.js';

/** Gives the account's notify_* flags their meaning: immediate mails and daily/weekly digests. */
export const notificationsPlugin = definePlugin({
  id: 'notifications',
  coreApi: CORE_API_VERSION,
  requires: ['account', 'media'],
  settings: NOTIFICATIONS_SETTINGS,
  extensionPoints: [DIGEST_SECTIONS],
  entities: [NotificationMatch, OutboxMessage],
  migrations: [NotificationsInit1764000010000],
  bindings: new ContainerModule(({ bind }) => {
    bind(NotificationService).toSelf().inSingletonScope();
    bind(MAILER).toService(NotificationService);
  }),
  contributions: [
    contribute(ACCOUNT_DELETED_HOOKS, (c) => (accountId: number) => c.get(NotificationService).forgetAccount(accountId)),
    contribute(EVENT_LISTENERS, (c) => (event) => c.get(NotificationService).onEvent(event)),
    contribute(MEDIA_EVENTS, (c) => ({
      registered: ({ media }) => c.get(NotificationService).onRegistered(media.accountId, media.path),
      deleted: async () => undefined,
    })),
  ],
  jobs: (c) => {
    const service = c.get(NotificationService);
    const settings = c.get<NotificationsSettings>(NOTIFICATIONS_SETTINGS.token);
    const specs: JobSpec<{ id: number }>[] = [{ queue: SEND_QUEUE, handler: (job) => service.send(job.id), onFinalFailure: (job) => service.abandon(job.id) }];
    const digests: JobSpec<object>[] = [
      { queue: 'notifications.daily-digest', schedule: settings.dailyCron, handler: async () => void (await service.digests('daily')) },
      { queue: 'notifications.weekly-digest', schedule: settings.weeklyCron, handler: async () => void (await service.digests('weekly')) },
    ];
    return [...specs, ...digests] as JobSpec<never>[];
  },
});
