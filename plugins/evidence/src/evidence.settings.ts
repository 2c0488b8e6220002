import { defineSettings, setting, type SettingValues } from '@filigrane/plugin-api';

export const EVIDENCE_SETTINGS = defineSettings('evidence', {
  tsaUrl: setting.optionalUrl({
    env: 'TSA_URL',
    description: 'RFC 3161 time stamp authority that stamps every evidence pack (an operator-trusted URL, e.g. https://freetsa.org/tsr); unset: packs say they carry no time stamp',
  }),
  chromiumPath: setting.string({
    env: 'CHROMIUM_PATH',
    default: '/usr/bin/chromium',
    description: 'Headless Chromium for the screenshots of evidence packs (Debian package chromium); absent: packs say so instead of a screenshot',
  }),
  autoCaptureDelaySeconds: setting.integer({
    env: 'EVIDENCE_AUTO_CAPTURE_DELAY_SECONDS',
    default: 15,
    min: 0,
    max: 3600,
    description: "Wait before an automatic pack of a new match, so the crawl that found it has written the page's WARC records",
  }),
  captureTimeoutMs: setting.integer({
    env: 'EVIDENCE_CAPTURE_TIMEOUT_MS',
    default: 45_000,
    min: 1000,
    description: "Deadline of one page's capture (fetches and screenshot) in an evidence pack",
  }),
  buildLeaseSeconds: setting.integer({
    env: 'EVIDENCE_BUILD_LEASE_SECONDS',
    default: 60,
    min: 1,
    max: 3600,
    description: 'Seconds without a heartbeat after which a pack build is taken as dead (its worker killed) and built again by another worker',
  }),
});

export type EvidenceSettings = SettingValues<typeof EVIDENCE_SETTINGS.specs>;
