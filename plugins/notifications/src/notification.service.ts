import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { createTransport, type Transporter } from 'nodemailer';
import { TOKENS, type Clock, type DomainEvent, type ExtensionRegistry, type JobQueue } from '@filigrane/core';
import { AccountService } from '@filigrane/plugin-account';
import { DIGEST_SECTIONS } from './digest-sections.js';
import { OutboxMessage } from './notification.entities.js';
import { texts } from './mail-texts.js';
import type { Mailer, MailMessage, MailResult } from './mailer.js';
import { NOTIFICATIONS_SETTINGS, type NotificationsSettings } from './notifications.settings.js';

export const SEND_QUEUE = 'notifications.send';
export type Period = 'daily' | 'weekly';
const PERIOD_MS: Record<Period, number> = { daily: 86_400_000, weekly: 7 * 86_400_000 };

interface Recipient {
  email: string;
  lang: string;
  flags: Record<string, boolean>;
  countries: string[];
}

/**
 * What each notify_* flag sends (docs/api-decisions.md): immediate mails for notify_web (a new web
 * match), notify_pdf (a press issue processed) and notify_upload (a media registered); daily and
 * weekly digests of new web matches by page (notify_match_url_*), by site (notify_match_site_*)
 * and of new press matches (notify_pdf_*). Web-match mails only count sites in
 * notif_site_countries when that list is not empty. Mails go to the outbox table, then to SMTP.
 */
@injectable()
export class NotificationService implements Mailer {
  private transport: Transporter | null = null;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.JobQueue) private readonly jobs: JobQueue,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(AccountService) private readonly accounts: AccountService,
    @inject(NOTIFICATIONS_SETTINGS.token) private readonly settings: NotificationsSettings,
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
  ) {}

  /** The account-deleted hook: its mails (sent or not, so none leaves after) and its digest entries. */
  async forgetAccount(accountId: number): Promise<void> {
    await this.db.query('DELETE FROM notification_outbox WHERE account_id = $1', [accountId]);
    await this.db.query('DELETE FROM notification_matches WHERE account_id = $1', [accountId]);
  }

  private async recipient(accountId: number): Promise<Recipient> {
    const [view, profile] = await Promise.all([this.accounts.view(accountId), this.accounts.profile(accountId)]);
    return { email: view.email, lang: profile.lang, flags: profile.notifications ?? {}, countries: profile.notifSiteCountries ?? [] };
  }

  private static countryOk(r: Recipient, country: string | null | undefined): boolean {
    return r.countries.length === 0 || (!!country && r.countries.includes(country.toUpperCase()));
  }

  /** The EVENT_LISTENERS contribution. */
  async onEvent(event: DomainEvent): Promise<void> {
    if (event.type === 'match.created') {
      const d = event.data as { id?: unknown; kind?: string; page_url?: string | null; site?: { domain?: string; country?: string | null } | null };
      // At-least-once delivery: a match already noted (a redelivered event) is neither noted nor mailed again.
      const noted: unknown[] = await this.db.query(
        `INSERT INTO notification_matches (account_id, match_id, kind, page_url, domain, country, created)
         SELECT $1, $2, $3, $4, $5, $6, $7
         WHERE NOT EXISTS (SELECT 1 FROM notification_matches WHERE account_id = $1 AND match_id = $2 AND $2 <> '')
         RETURNING id`,
        [event.accountId, String(d.id ?? ''), d.kind ?? 'web', d.page_url ?? null, d.site?.domain ?? null, d.site?.country ?? null, event.occurredAt ?? this.clock.now()],
      );
      if (noted.length === 0 || d.kind !== 'web') return;
      const r = await this.recipient(event.accountId);
      if (!r.flags.notify_web || !NotificationService.countryOk(r, d.site?.country)) return;
      const t = texts(r.lang);
      await this.mail(event.accountId, 'notify_web', r.email, t.webSubject(1), `${t.webIntro}\n${d.page_url ?? d.site?.domain ?? ''}\n\n${t.footer}\n`);
    } else if (event.type === 'press.issue.processed') {
      const r = await this.recipient(event.accountId);
      if (!r.flags.notify_pdf) return;
      const d = event.data as { title?: string; name?: string; id?: unknown; match_count?: number; matches?: number };
      const title = d.title ?? d.name ?? String(d.id ?? '');
      const t = texts(r.lang);
      await this.mail(event.accountId, 'notify_pdf', r.email, t.pdfSubject(title), `${t.pdfBody(title, Number(d.match_count ?? d.matches ?? 0))}\n\n${t.footer}\n`);
    }
  }

  /** The MEDIA_EVENTS contribution: notify_upload. */
  async onRegistered(accountId: number, path: string): Promise<void> {
    const r = await this.recipient(accountId);
    if (!r.flags.notify_upload) return;
    const t = texts(r.lang);
    await this.mail(accountId, 'notify_upload', r.email, t.uploadSubject(path), `${t.uploadBody(path)}\n\n${t.footer}\n`);
  }

  /** One digest per account with something new in the period before `now` and a flag asking for it. */
  async digests(period: Period, now = this.clock.now()): Promise<number> {
    const since = new Date(now.getTime() - PERIOD_MS[period]);
    const accounts: { account_id: number }[] = await this.db.query(
      'SELECT DISTINCT account_id FROM notification_matches WHERE created >= $1 AND created < $2 ORDER BY account_id',
      [since, now],
    );
    let sent = 0;
    for (const { account_id: accountId } of accounts) {
      const r = await this.recipient(accountId);
      const wantPages = r.flags[`notify_match_url_${period}`];
      const wantSites = r.flags[`notify_match_site_${period}`];
      const wantPress = r.flags[`notify_pdf_${period}`];
      if (!wantPages && !wantSites && !wantPress) continue;
      const rows: { kind: string; page_url: string | null; domain: string | null; country: string | null }[] = await this.db.query(
        'SELECT kind, page_url, domain, country FROM notification_matches WHERE account_id = $1 AND created >= $2 AND created < $3 ORDER BY created',
        [accountId, since, now],
      );
      const web = rows.filter((m) => m.kind === 'web' && NotificationService.countryOk(r, m.country));
      const press = rows.filter((m) => m.kind === 'press');
      const t = texts(r.lang);
      const sections: string[] = [];
      const group = (items: typeof rows, key: (m: (typeof rows)[number]) => string) => {
        const counts = new Map<string, number>();
        for (const m of items) counts.set(key(m), (counts.get(key(m)) ?? 0) + 1);
        return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `- ${k}: ${t.matches(n)}`);
      };
      if (wantPages && web.length) sections.push(`${t.byPage}\n${group(web, (m) => m.page_url ?? '?').join('\n')}`);
      if (wantSites && web.length) sections.push(`${t.bySite}\n${group(web, (m) => (m.country ? `${m.domain} (${m.country})` : (m.domain ?? '?'))).join('\n')}`);
      if (wantPress && press.length) sections.push(`${t.press}\n${group(press, (m) => m.page_url ?? m.domain ?? '?').join('\n')}`);
      if (sections.length === 0) continue;
      for (const section of this.extensions.get(DIGEST_SECTIONS)) {
        const text = await section({ accountId, period, since, until: now, lang: r.lang });
        if (text) sections.push(text.trimEnd());
      }
      const count = (wantPages || wantSites ? web.length : 0) + (wantPress ? press.length : 0);
      await this.mail(accountId, `digest_${period}`, r.email, t.digestSubject(period, count), `${sections.join('\n\n')}\n\n${t.footer}\n`);
      sent++;
    }
    return sent;
  }

  /** Writes the mail to the outbox, then a job sends it (so a restart loses none). */
  async mail(accountId: number, reason: string, to: string, subject: string, body: string): Promise<void> {
    const repo = this.db.getRepository(OutboxMessage);
    const row = await repo.save(repo.create({ accountId, reason, toAddress: to, subject, body, status: 'pending', error: null, sentAt: null }));
    await this.jobs.send(SEND_QUEUE, { id: row.id });
  }

  /** The send job: SMTP when SMTP_URL is set; otherwise the message stays in the outbox. */
  async send(id: number): Promise<void> {
    const repo = this.db.getRepository(OutboxMessage);
    const row = await repo.findOneBy({ id });
    if (!row || row.status !== 'pending') return;
    if (!this.settings.smtpUrl) {
      await repo.update({ id }, { status: 'outbox' });
      return;
    }
    this.transport ??= createTransport(this.settings.smtpUrl);
    try {
      await this.transport.sendMail({ from: this.settings.from, to: row.toAddress, subject: row.subject, text: row.body });
      await repo.update({ id }, { status: 'sent', sentAt: this.clock.now(), error: null });
    } catch (err) {
      await repo.update({ id }, { status: 'failed', error: (err as Error).message.slice(0, 500) });
    }
  }

  /** A mail whose sending runs all stopped without an outcome (the worker killed each time): failed, so it no longer says pending. */
  async abandon(id: number): Promise<void> {
    await this.db.getRepository(OutboxMessage).update(
      { id, status: 'pending' },
      { status: 'failed', error: "sending was tried several times and stopped each time on the service's side (see the server log)" },
    );
  }

  get configured(): boolean {
    return !!this.settings.smtpUrl;
  }

  /**
   * The MAILER interface: one mail sent now (the caller reports the outcome to its user), logged in
   * the outbox with its outcome. Attachments are sent, not kept: the caller stores what it sends.
   */
  async sendNow(message: MailMessage): Promise<MailResult> {
    if (!this.settings.smtpUrl) throw new Error('no SMTP_URL is set: mails cannot be sent');
    const repo = this.db.getRepository(OutboxMessage);
    const names = (message.attachments ?? []).map((a) => a.filename);
    const row = await repo.save(
      repo.create({
        accountId: message.accountId, reason: message.reason, toAddress: message.to, subject: message.subject,
        body: names.length ? `${message.text}

[attached: ${names.join(', ')}]
` : message.text, status: 'pending', error: null, sentAt: null,
      }),
    );
    this.transport ??= createTransport(this.settings.smtpUrl);
    try {
      const info = await this.transport.sendMail({
        from: this.settings.from, to: message.to, replyTo: message.replyTo, subject: message.subject, text: message.text,
        attachments: (message.attachments ?? []).map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
      });
      const sentAt = this.clock.now();
      await repo.update({ id: row.id }, { status: 'sent', sentAt, error: null });
      return { id: row.id, status: 'sent', error: null, messageId: (info as { messageId?: string }).messageId ?? null, sentAt };
    } catch (err) {
      const error = (err as Error).message.slice(0, 500);
      await repo.update({ id: row.id }, { status: 'failed', error });
      return { id: row.id, status: 'failed', error, messageId: null, sentAt: null };
    }
  }

  /** The latest messages, newest first (`filigrane outbox`). */
  outbox(limit = 50): Promise<OutboxMessage[]> {
    return this.db.getRepository(OutboxMessage).find({ order: { id: 'DESC' }, take: limit });
  }
}
