export { accountPlugin } from './account.plugin.js';
export { AccountService, type AccountView, type QuotaLimits } from './account.service.js';
export { NOTIFICATION_KEYS, QUOTA_COUNTERS } from './account-keys.js';
export { AccountUsageService, QUOTA_EXCEEDED, type UsageDelta } from './account-usage.service.js';
export { AccountDeletionService, type DeletionRequest } from './account-deletion.service.js';
