import { defineSettings, setting, type SettingValues } from '@filigrane/core';

export const NOTIFICATIONS_SETTINGS = defineSettings('notifications', {
  smtpUrl: setting.optionalUrl({ env: 'SMTP_URL', secret: true, description: 'Mail server (`smtp://user:pass@host:587`, `smtps://...`); unset: mails stay in the outbox table, printed by `filigrane outbox`' }),
  from: setting.string({ env: 'MAIL_FROM', default: 'Filigrane <no-reply@localhost>', description: 'Sender of notification mails' }),
  dailyCron: setting.string({ env: 'DIGEST_DAILY_CRON', default: '0 6 * * *', description: 'When daily digests go out (cron, UTC); each covers the 24 hours before' }),
  weeklyCron: setting.string({ env: 'DIGEST_WEEKLY_CRON', default: '0 6 * * 1', description: 'When weekly digests go out (cron, UTC); each covers the 7 days before' }),
});
export type NotificationsSettings = SettingValues<typeof NOTIFICATIONS_SETTINGS.specs>;
