import { defineSettings, setting, type SettingValues } from '@filigrane/plugin-api';

export const REVIEW_SETTINGS = defineSettings('review', {
  bulkMax: setting.integer({
    env: 'REVIEW_BULK_MAX',
    default: 100_000,
    min: 1,
    description: 'Most matches one bulk review by filter may change (more is a 422 asking for a narrower filter)',
  }),
  licenceSyncMax: setting.integer({
    env: 'REVIEW_LICENCE_SYNC_MAX',
    default: 2000,
    min: 0,
    description: 'Accounts with at most this many matches have a licensee change re-applied within the request; larger ones by a job',
  }),
});
export type ReviewSettings = SettingValues<typeof REVIEW_SETTINGS.specs>;
