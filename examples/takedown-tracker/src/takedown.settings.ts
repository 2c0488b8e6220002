import { defineSettings, setting, type SettingValues } from '@filigrane/plugin-api';

export const TAKEDOWN_SETTINGS = defineSettings('takedown', {
  days: setting.integer({ env: 'TAKEDOWN_DAYS', default: 14, min: 1, description: 'Days a takedown request may stay unanswered before it is flagged overdue' }),
  autoOpen: setting.boolean({ env: 'TAKEDOWN_AUTO_OPEN', default: false, description: 'Open a takedown request for every new match on a page' }),
});
export type TakedownSettings = SettingValues<typeof TAKEDOWN_SETTINGS.specs>;
