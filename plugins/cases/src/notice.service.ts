import { createHash } from 'node:crypto';
import { ApiError, badRequest, conflict, inject, injectable, notFound, optional, TOKENS, type BlobStore, type Clock, type DataSource, type Logger, type LoggerFactory, type MediaReader, type Principal } from '@filigrane/plugin-api';
import { AccountService } from '@filigrane/plugin-account';
import { MAILER, type Mailer } from '@filigrane/plugin-notifications';
import { actorOf, CaseService, type Actor, type CaseRow } from './case.service.js';
import { isActive } from './case-states.js';
import { noticeDocument, noticeText, type NoticeFacts } from './notice-document.js';
import { noticePdf } from './notice-pdf.js';
import { noticeTexts, type NoticeLang, type NoticeType } from './notice-texts.js';

/** The blob prefix of an account's notice PDFs. */
const filesPrefix = (accountId: number) => `cases/${accountId}`;

export interface NoticeRow {
  id: number;
  case_id: number;
  account_id: number;
  type: NoticeType;
  lang: NoticeLang;
  created: Date;
  actor: Actor;
  body: string;
  pdf_key: string;
  pdf_sha256: string;
  pdf_size: number;
  facts: NoticeFacts;
  sent_at: Date | null;
  sent_to: string | null;
  sent_via: 'mail' | 'manual' | null;
  mail_message_id: string | null;
}

export interface NoticeInput {
  type: NoticeType;
  lang?: NoticeLang;
  rightsHolder?: { name?: string; email?: string; address?: string; phone?: string };
  signature?: string;
  recipient?: { name?: string; email?: string };
  explanation?: string;
}

/**
 * Takedown notices of a case: a DMCA notice or a DSA article 16 notice, in the account's language,
 * as text and PDF (kept as made: what was sent stays what the API shows), sent by mail through the
 * notifications plugin's mailer or recorded as sent by other means. Sending moves the case to notice_sent.
 */
@injectable()
export class NoticeService {
  private readonly log: Logger;

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.MediaReader) private readonly media: MediaReader,
    @inject(TOKENS.Loggers) loggers: LoggerFactory,
    @inject(CaseService) private readonly cases: CaseService,
    @inject(AccountService) private readonly accounts: AccountService,
    @inject(MAILER) @optional() private readonly mailer: Mailer | undefined,
  ) {
    this.log = loggers.for('cases');
  }

  list(accountId: number, caseId: number): Promise<NoticeRow[]> {
    return this.db.query('SELECT * FROM cases_notices WHERE account_id = $1 AND case_id = $2 ORDER BY id', [accountId, caseId]);
  }

  /** list() of several cases in one statement. */
  async listOf(accountId: number, caseIds: number[]): Promise<Map<number, NoticeRow[]>> {
    const rows = (await this.db.query('SELECT * FROM cases_notices WHERE account_id = $1 AND case_id = ANY($2) ORDER BY id', [accountId, caseIds])) as NoticeRow[];
    const out = new Map<number, NoticeRow[]>(caseIds.map((id) => [id, []]));
    for (const n of rows) out.get(Number(n.case_id))?.push(n);
    return out;
  }

  async get(accountId: number, caseId: number, id: number): Promise<NoticeRow> {
    const rows = Number.isSafeInteger(id) && Number.isSafeInteger(caseId) ? ((await this.db.query('SELECT * FROM cases_notices WHERE account_id = $1 AND case_id = $2 AND id = $3', [accountId, caseId, id])) as NoticeRow[]) : [];
    if (!rows[0]) throw notFound('No such notice.');
    return rows[0];
  }

  /** The PDF as made; a file gone from the store is a server fault, logged, never an empty answer. */
  async pdf(n: NoticeRow): Promise<Buffer> {
    const bytes = await this.blobs.get(n.pdf_key);
    if (!bytes) {
      this.log.error(`notice ${n.id}: its PDF is missing from the blob store (${n.pdf_key})`);
      throw new ApiError(500, 'file_missing', 'The notice\'s PDF is missing on the server.');
    }
    return bytes;
  }

  async create(principal: Principal, caseId: number, input: NoticeInput): Promise<NoticeRow> {
    const accountId = principal.accountId;
    const c = await this.cases.get(accountId, caseId);
    if (!isActive(c.state)) throw conflict('case_not_active', `A ${c.state} case takes no notice.`);
    const facts = await this.facts(accountId, c, input);
    const doc = noticeDocument(facts);
    const body = noticeText(doc);
    const now = this.clock.now();
    const pdf = await noticePdf(doc, { author: facts.signer, created: now });
    const [{ id }] = (await this.db.query(`SELECT nextval(pg_get_serial_sequence('cases_notices', 'id'))::int AS id`)) as { id: number }[];
    const key = `${filesPrefix(accountId)}/notices/${id}.pdf`;
    await this.blobs.put(key, pdf);
    try {
      await this.cases.inTransaction(accountId, async (tx) => {
        const fresh = await this.cases.get(accountId, caseId, tx);
        await tx.query(
          `INSERT INTO cases_notices (id, case_id, account_id, type, lang, created, actor, body, pdf_key, pdf_sha256, pdf_size, facts)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [id, caseId, accountId, facts.type, facts.lang, now, JSON.stringify(actorOf(principal)), body, key, createHash('sha256').update(pdf).digest('hex'), pdf.length, JSON.stringify(facts)],
        );
        await this.cases.record(tx, fresh, { action: 'notice_created', actor: actorOf(principal), detail: { notice_id: String(id), type: facts.type, lang: facts.lang } });
      });
    } catch (err) {
      await this.blobs.delete(key).catch(() => undefined);
      throw err;
    }
    return this.get(accountId, caseId, id);
  }

  /** Sends the notice (text in the body, PDF attached) to `to`, replies going to the rights holder. */
  async send(principal: Principal, caseId: number, id: number, to: string, note?: string): Promise<NoticeRow> {
    const n = await this.get(principal.accountId, caseId, id);
    const c = await this.cases.get(principal.accountId, caseId);
    if (!isActive(c.state)) throw conflict('case_not_active', `A ${c.state} case sends no notice.`);
    if (!this.mailer?.configured) throw new ApiError(503, 'mail_not_configured', 'This server sends no mail (no SMTP_URL): download the notice (pdf/ or text/) and send it yourself, then record it as sent.');
    const t = noticeTexts(n.lang);
    const result = await this.mailer.sendNow({
      accountId: principal.accountId,
      reason: 'cases.notice',
      to,
      replyTo: n.facts.rights_holder.email,
      subject: t.mailSubject(n.type, n.facts.case.site),
      text: `${t.mailIntro}\n\n${n.body}`,
      attachments: [{ filename: `${n.type}-notice-${n.id}.pdf`, contentType: 'application/pdf', content: await this.pdf(n) }],
    });
    if (result.status !== 'sent') throw new ApiError(503, 'mail_failed', `The mail server did not take the notice: ${result.error ?? 'unknown error'}. Nothing was recorded.`);
    return this.markSent(principal, c, n, { to, via: 'mail', at: result.sentAt ?? this.clock.now(), messageId: result.messageId, note: note ?? null });
  }

  /** Records a notice sent by other means (a host's web form, a letter): the case moves to notice_sent. */
  async recordSent(principal: Principal, caseId: number, id: number, input: { to?: string; note?: string }): Promise<NoticeRow> {
    const n = await this.get(principal.accountId, caseId, id);
    const c = await this.cases.get(principal.accountId, caseId);
    return this.markSent(principal, c, n, { to: input.to ?? null, via: 'manual', at: this.clock.now(), messageId: null, note: input.note ?? null });
  }

  private async markSent(principal: Principal, c: CaseRow, n: NoticeRow, sent: { to: string | null; via: 'mail' | 'manual'; at: Date; messageId: string | null; note: string | null }): Promise<NoticeRow> {
    await this.cases.inTransaction(principal.accountId, async (tx) => {
      const fresh = await this.cases.get(principal.accountId, c.id, tx);
      await tx.query('UPDATE cases_notices SET sent_at = $2, sent_to = $3, sent_via = $4, mail_message_id = $5 WHERE id = $1', [n.id, sent.at, sent.to, sent.via, sent.messageId]);
      await this.cases.noticeSent(tx, fresh, actorOf(principal), { notice_id: String(n.id), type: n.type, sent_to: sent.to, sent_via: sent.via }, sent.note);
    });
    return this.get(principal.accountId, c.id, n.id);
  }

  /** What the notice names: the works, every copy with its evidence, the rights holder, in the chosen language. */
  private async facts(accountId: number, c: CaseRow, input: NoticeInput): Promise<NoticeFacts> {
    const members = await this.cases.caseMatches(c.id);
    if (members.length === 0) throw conflict('case_empty', 'The case has no match to name in a notice.');
    // Re-checked now: a match found licensed since it joined is never named in a demand.
    await this.cases.assertInfringing(accountId, members.map((m) => m.match_id));
    const packs = await this.cases.refreshedEvidence(accountId, c.id);
    const pending = packs.filter((p) => p.status === 'pending');
    if (pending.length) throw conflict('evidence_not_ready', `Evidence pack(s) still being captured: ${pending.map((p) => p.pack_id).join(', ')}. Try again when they are ready.`);
    const copies: NoticeFacts['copies'] = [];
    const fresh = await this.cases.factsOf(accountId, members.map((m) => m.match_id));
    for (const m of members) {
      const f = fresh.get(m.match_id) ?? { ...m, first_seen: m.first_seen ?? m.added, last_seen: m.last_seen ?? m.added };
      copies.push({
        match_id: m.match_id,
        page_url: f.page_url,
        image_url: f.image_url,
        first_seen: new Date(f.first_seen).toISOString(),
        last_seen: new Date(f.last_seen).toISOString(),
        evidence: packs
          .filter((p) => p.status === 'complete' && p.sha256 && (p.match_ids.length === 0 || p.match_ids.includes(m.match_id)))
          .map((p) => ({ pack_id: p.pack_id, sha256: p.sha256!, captured: p.captured ? new Date(p.captured).toISOString() : null })),
      });
    }
    const mediaIds = [...new Set(members.map((m) => m.media_id).filter((id): id is string => id !== null))];
    const media = await this.media.byIds(mediaIds.map(Number), accountId);
    const works = mediaIds.map((id) => {
      const r = media.find((x) => String(x.id) === id);
      return { media_id: id, path: r?.path ?? `media ${id} (deleted)`, registered: (r?.created ?? new Date(0)).toISOString() };
    });
    const [view, profile, settings] = await Promise.all([this.accounts.view(accountId), this.accounts.profile(accountId), this.cases.settings(accountId)]);
    const defaults = settings.rights_holder ?? {};
    const holder = {
      name: input.rightsHolder?.name ?? defaults.name ?? view.full_name?.trim() ?? '',
      email: input.rightsHolder?.email ?? defaults.email ?? view.email ?? '',
      address: input.rightsHolder?.address ?? defaults.address ?? null,
      phone: input.rightsHolder?.phone ?? defaults.phone ?? null,
    };
    if (!holder.name) throw badRequest('rights_holder_required', 'A notice names the rights holder: give rights_holder.name (or set a full name on the account, or rights_holder in /api/v4/cases/settings/).');
    if (!holder.email) throw badRequest('rights_holder_required', 'A notice gives the rights holder\'s e-mail: give rights_holder.email.');
    const lang: NoticeLang = input.lang ?? (profile.lang === 'fr' ? 'fr' : 'en');
    return {
      type: input.type,
      lang,
      date: this.clock.now().toISOString(),
      case: { id: String(c.id), title: c.title, site: c.site },
      recipient: { name: input.recipient?.name ?? null, email: input.recipient?.email ?? null },
      rights_holder: holder,
      signer: input.signature ?? holder.name,
      works,
      copies,
      explanation: input.explanation ?? null,
    };
  }

  /**
   * Part of an account's deletion, before its rows go: every file under the account's prefix, so a
   * retried deletion still finds them (and a PDF whose notice row never committed goes too).
   */
  async forgetAccount(accountId: number): Promise<void> {
    await this.blobs.deletePrefix(filesPrefix(accountId));
  }

  /** Notice files of deleted cases. */
  async deleteFiles(keys: string[]): Promise<void> {
    for (const key of keys) await this.blobs.delete(key);
  }
}
