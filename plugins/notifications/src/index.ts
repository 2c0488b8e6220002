export { notificationsPlugin } from './notifications.plugin.js';
export { NotificationService, type Period } from './notification.service.js';
export { NOTIFICATIONS_SETTINGS } from './notifications.settings.js';
export { DIGEST_SECTIONS, type DigestSection, type DigestSectionRequest } from './digest-sections.js';
export { MAILER, type Mailer, type MailMessage, type MailAttachment, type MailResult } from './mailer.js';
