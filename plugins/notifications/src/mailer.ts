/**
 * The notifications plugin's mailer, for other plugins (`@inject(MAILER)`): a mail sent now through
 * the operator's SMTP server, with attachments, and logged in the notifications outbox.
 */
export const MAILER = Symbol.for('filigrane.notifications.mailer');

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MailMessage {
  /** The account the mail is sent for (the outbox row is scoped by it). */
  accountId: number;
  /** Why it is sent (`cases.notice`...), kept in the outbox. */
  reason: string;
  to: string;
  subject: string;
  text: string;
  /** Where replies go (the sender is always the service's MAIL_FROM). */
  replyTo?: string;
  attachments?: MailAttachment[];
}

export interface MailResult {
  /** The outbox row. */
  id: number;
  status: 'sent' | 'failed';
  /** The SMTP server's answer when it refused or could not be reached. */
  error: string | null;
  /** The Message-ID the server accepted. */
  messageId: string | null;
  sentAt: Date | null;
}

export interface Mailer {
  /** False when no SMTP_URL is set: nothing can leave the service. */
  readonly configured: boolean;
  /** Sends now (no queue: the caller learns whether the server took it); throws when not configured. */
  sendNow(message: MailMessage): Promise<MailResult>;
}
