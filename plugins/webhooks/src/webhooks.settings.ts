import { defineSettings, setting, type SettingValues } from '@filigrane/core';

export const WEBHOOKS_SETTINGS = defineSettings('webhooks', {
  retryDelays: setting.list({
    env: 'WEBHOOKS_RETRY_DELAYS',
    default: ['5', '300', '1800', '7200', '18000', '36000', '36000'],
    description: 'Seconds to wait before each retry of a failed delivery (default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27 hours in all)',
  }),
  disableAfterHours: setting.number({ env: 'WEBHOOKS_DISABLE_AFTER_HOURS', default: 120, min: 0, description: 'An endpoint whose deliveries have failed without a success for this long is disabled, with the reason' }),
  timeoutMs: setting.integer({ env: 'WEBHOOKS_TIMEOUT_MS', default: 15_000, min: 100, description: 'Deadline of one delivery attempt (connect, send, response)' }),
  concurrency: setting.integer({ env: 'WEBHOOKS_CONCURRENCY', default: 16, min: 1, max: 200, description: 'Deliveries one worker process attempts at once' }),
});
export type WebhooksSettings = SettingValues<typeof WEBHOOKS_SETTINGS.specs>;

/** The retry schedule in seconds; a malformed entry is a boot error like any setting. */
export function retryDelays(settings: WebhooksSettings): number[] {
  return settings.retryDelays.map((raw) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`plugin "webhooks": setting WEBHOOKS_RETRY_DELAYS must list non-negative numbers of seconds, got "${raw}"`);
    return n;
  });
}
