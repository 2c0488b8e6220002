import { defineSettings, setting, type SettingValues } from '@filigrane/core';

export const ACCOUNT_SETTINGS = defineSettings('account', {
  selfDelete: setting.boolean({ env: 'ACCOUNT_SELF_DELETE', default: true, description: 'Whether an account may delete itself (`DELETE /api/v4/account/` with its API key and its username as confirmation); operators always can (`filigrane account delete`)' }),
});
export type AccountSettings = SettingValues<typeof ACCOUNT_SETTINGS.specs>;
