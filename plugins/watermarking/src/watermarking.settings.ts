import { defineSettings, setting, type SettingValues } from '@filigrane/core';

export const WATERMARKING_SETTINGS = defineSettings('watermarking', {
  ttlHours: setting.number({ env: 'WATERMARKING_TTL_HOURS', default: 24, min: 0.001, description: 'Lifetime (hours, fractions allowed) of the watermarking endpoint\'s assets (original, watermarked, .lmk)' }),
  maxActive: setting.integer({ env: 'WATERMARKING_MAX_ACTIVE', default: 4, min: 1, description: 'Watermarkings one account may have pending or running at once (more: 429 with Retry-After)' }),
});
export type WatermarkingSettings = SettingValues<typeof WATERMARKING_SETTINGS.specs>;
