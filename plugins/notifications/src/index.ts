export { notificationsPlugin } from './notifications.plugin.js';
export { NotificationService, type Period } from './notification.service.js';
export { OutboxMessage, type OutboxStatus } from './notification.entities.js';
export { NOTIFICATIONS_SETTINGS } from './notifications.settings.js';
