import { defineSettings, setting, type SettingValues } from '@filigrane/core';

export const PRESS_SETTINGS = defineSettings('press', {
  inboxDir: setting.optionalString({ env: 'PRESS_INBOX_DIR', description: 'Folder watched for press issues (PDF named "<publication> <YYYY-MM-DD>.pdf"), looked at every minute by a worker; unset: no inbox' }),
  maxPages: setting.integer({ env: 'PRESS_MAX_PAGES', default: 2000, min: 1, description: 'Documents (press issues, document searches) with more pages fail with `too_many_pages`' }),
  timeoutSeconds: setting.integer({ env: 'PRESS_TIMEOUT_SECONDS', default: 600, min: 1, description: 'Wall-clock limit of the analysis of one document; beyond it the issue or search fails with `timeout`' }),
  ocr: setting.boolean({ env: 'PRESS_OCR', default: true, description: 'Read the credit lines of pages without a text layer (scans) by OCR (tesseract.js, English and French)' }),
});
export type PressSettings = SettingValues<typeof PRESS_SETTINGS.specs>;
