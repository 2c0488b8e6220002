import { defineSettings, setting, type SettingValues } from '@filigrane/core';

export const AUTH_SETTINGS = defineSettings('auth', {
  sessionIdleMinutes: setting.integer({ env: 'SESSION_IDLE_MINUTES', default: 720, min: 1, max: 525_600, description: 'A browser session (the console) unused this long expires; signing in again starts a new one' }),
  sessionMaxHours: setting.integer({ env: 'SESSION_MAX_HOURS', default: 168, min: 1, max: 8_760, description: 'A browser session expires this long after sign-in, however active' }),
});
export type AuthSettings = SettingValues<typeof AUTH_SETTINGS.specs>;
