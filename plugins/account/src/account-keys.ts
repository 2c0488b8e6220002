// Names other plugins may use: notification flags and quota counters of an account's profile.
export const NOTIFICATION_KEYS = [
  'notify_upload',
  'notify_pdf',
  'notify_web',
  'notify_download',
  'notify_favorite',
  'notify_newsletter',
  'notify_offers',
  'notify_pdf_daily',
  'notify_pdf_weekly',
  'notify_match_url_daily',
  'notify_match_url_weekly',
  'notify_match_site_daily',
  'notify_match_site_weekly',
] as const;
export type NotificationKey = (typeof NOTIFICATION_KEYS)[number];

export const QUOTA_COUNTERS = ['uploaded_marks', 'uploaded_images', 'active_paths_in_home', 'paths_in_home', 'user_paths'] as const;
export type QuotaCounter = (typeof QUOTA_COUNTERS)[number];
