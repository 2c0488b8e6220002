import { Arg, Ctx, Field, ID, inject, injectable, InputType, Int, Mutation, ObjectType, Query, requirePrincipal, Resolver, type GraphQLContext } from '@filigrane/plugin-api';
import { CaseService, type Actor, type CaseMatchRow, type CaseRow, type EvidenceRow, type HistoryRow, type RightsHolderDefaults } from './case.service.js';
import { CASE_STATES, type CaseState } from './case-states.js';
import { FieldReader, idParam } from './case-input.js';
import { caseDetailView, noticeView } from './case-view.js';
import type { NoticeFacts } from './notice-document.js';
import { noticeInput } from './notice-input.js';
import { NoticeService, type NoticeRow } from './notice.service.js';

@ObjectType('CaseActor', { description: 'Who made a change: an account, one of its OAuth applications, or the service itself' })
export class CaseActorType {
  @Field(() => String) type!: string;
  @Field(() => Int, { nullable: true }) accountId!: number | null;
  @Field(() => Int, { nullable: true }) applicationId!: number | null;
}

@ObjectType('CaseMatch')
export class CaseMatchType {
  @Field(() => ID) id!: string;
  @Field(() => ID, { nullable: true }) mediaId!: string | null;
  @Field(() => String, { nullable: true }) site!: string | null;
  @Field(() => String, { nullable: true }) pageUrl!: string | null;
  @Field(() => String, { nullable: true }) imageUrl!: string | null;
  @Field(() => Date, { nullable: true }) firstSeen!: Date | null;
  @Field(() => Date, { nullable: true }) lastSeen!: Date | null;
  @Field(() => Date) added!: Date;
}

@ObjectType('CaseEvidencePack', { description: 'An evidence pack of the evidence plugin, referenced by id with its SHA-256' })
export class CaseEvidenceType {
  @Field(() => ID) packId!: string;
  @Field(() => String, { description: 'pending, complete or failed' }) status!: string;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => String, { nullable: true, description: 'null while the pack is being captured' }) sha256!: string | null;
  @Field(() => Int, { nullable: true }) size!: number | null;
  @Field(() => Date, { nullable: true }) captured!: Date | null;
  @Field(() => [ID]) matchIds!: string[];
  @Field(() => Date) added!: Date;
}

@ObjectType('CaseHistoryEntry', { description: 'One change of a case: a transition (time, actor, note), matches added or removed, a notice made or sent' })
export class CaseHistoryType {
  @Field(() => Date) at!: Date;
  @Field(() => String) action!: string;
  @Field(() => String, { nullable: true }) fromState!: string | null;
  @Field(() => String, { nullable: true }) toState!: string | null;
  @Field(() => String, { nullable: true }) resolution!: string | null;
  @Field(() => CaseActorType) actor!: CaseActorType;
  @Field(() => String, { nullable: true }) note!: string | null;
  @Field(() => [ID]) matchIds!: string[];
  @Field(() => ID, { nullable: true }) noticeId!: string | null;
  @Field(() => ID, { nullable: true }) packId!: string | null;
  @Field(() => String, { nullable: true, description: 'renamed: the new title' }) title!: string | null;
  @Field(() => String, { nullable: true, description: 'notice_created, notice_sent: dmca or dsa' }) type!: string | null;
  @Field(() => String, { nullable: true, description: 'notice_created: the notice\'s language' }) lang!: string | null;
  @Field(() => String, { nullable: true, description: 'notice_sent: where it went' }) sentTo!: string | null;
  @Field(() => String, { nullable: true, description: 'notice_sent: mail or manual' }) sentVia!: string | null;
  @Field(() => String, { nullable: true, description: 'evidence_added: the pack\'s SHA-256' }) sha256!: string | null;
}

@ObjectType('TakedownNoticeCase', { description: 'The case a notice was made for, as it was then' })
export class TakedownNoticeCaseType {
  @Field(() => ID) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) site!: string | null;
}

@ObjectType('TakedownNoticeRecipient')
export class TakedownNoticeRecipientType {
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) email!: string | null;
}

@ObjectType('TakedownNoticeRightsHolder')
export class TakedownNoticeRightsHolderType {
  @Field(() => String) name!: string;
  @Field(() => String) email!: string;
  @Field(() => String, { nullable: true }) address!: string | null;
  @Field(() => String, { nullable: true }) phone!: string | null;
}

@ObjectType('TakedownNoticeWork', { description: 'A registered media the notice names' })
export class TakedownNoticeWorkType {
  @Field(() => ID) mediaId!: string;
  @Field(() => String) path!: string;
  @Field(() => Date) registered!: Date;
}

@ObjectType('TakedownNoticeEvidence', { description: 'An evidence pack a notice cites for a copy' })
export class TakedownNoticeEvidenceType {
  @Field(() => ID) packId!: string;
  @Field(() => String) sha256!: string;
  @Field(() => Date, { nullable: true }) captured!: Date | null;
}

@ObjectType('TakedownNoticeCopy', { description: 'A copy the notice names' })
export class TakedownNoticeCopyType {
  @Field(() => ID) matchId!: string;
  @Field(() => String, { nullable: true }) pageUrl!: string | null;
  @Field(() => String, { nullable: true }) imageUrl!: string | null;
  @Field(() => Date) firstSeen!: Date;
  @Field(() => Date) lastSeen!: Date;
  @Field(() => [TakedownNoticeEvidenceType]) evidence!: TakedownNoticeEvidenceType[];
}

@ObjectType('TakedownNoticeFacts', { description: 'What a notice names, as it was made (its text and PDF are drawn from these)' })
export class TakedownNoticeFactsType {
  @Field(() => String) type!: string;
  @Field(() => String) lang!: string;
  @Field(() => Date) date!: Date;
  @Field(() => TakedownNoticeCaseType) case!: TakedownNoticeCaseType;
  @Field(() => TakedownNoticeRecipientType) recipient!: TakedownNoticeRecipientType;
  @Field(() => TakedownNoticeRightsHolderType) rightsHolder!: TakedownNoticeRightsHolderType;
  @Field(() => String) signer!: string;
  @Field(() => [TakedownNoticeWorkType]) works!: TakedownNoticeWorkType[];
  @Field(() => [TakedownNoticeCopyType]) copies!: TakedownNoticeCopyType[];
  @Field(() => String, { nullable: true }) explanation!: string | null;
}

@ObjectType('TakedownNotice')
export class TakedownNoticeType {
  @Field(() => ID) id!: string;
  @Field(() => ID) caseId!: string;
  @Field(() => String, { description: 'dmca or dsa' }) type!: string;
  @Field(() => String) lang!: string;
  @Field(() => Date) created!: Date;
  @Field(() => String, { description: 'URL of the PDF' }) pdfUrl!: string;
  @Field(() => String, { description: 'URL of the text' }) textUrl!: string;
  @Field(() => String) pdfSha256!: string;
  @Field(() => Int) pdfSize!: number;
  @Field(() => String, { description: 'The notice as text' }) body!: string;
  @Field(() => Date, { nullable: true }) sentAt!: Date | null;
  @Field(() => String, { nullable: true }) sentTo!: string | null;
  @Field(() => String, { nullable: true, description: 'mail or manual' }) sentVia!: string | null;
  @Field(() => CaseActorType, { description: 'Who made it' }) actor!: CaseActorType;
  @Field(() => TakedownNoticeFactsType) facts!: TakedownNoticeFactsType;
}

@ObjectType('Case', { description: 'Infringing matches grouped for action: states open, notice_sent, resolved, closed' })
export class CaseType {
  @Field(() => ID) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true }) site!: string | null;
  @Field(() => String) state!: string;
  @Field(() => String, { nullable: true, description: 'removed, licensed_afterwards or paid (resolved cases)' }) resolution!: string | null;
  @Field(() => Date) created!: Date;
  @Field(() => Date) updated!: Date;
  @Field(() => Int) matchCount!: number;
  @Field(() => [ID]) matchIds!: string[];
  @Field(() => Int) evidenceCount!: number;
  @Field(() => Int) noticeCount!: number;
  @Field(() => Date, { nullable: true, description: 'When its last notice went out' }) lastNoticeSent!: Date | null;
  @Field(() => [CaseMatchType]) matches!: CaseMatchType[];
  @Field(() => [CaseEvidenceType]) evidence!: CaseEvidenceType[];
  @Field(() => [TakedownNoticeType]) notices!: TakedownNoticeType[];
  @Field(() => [CaseHistoryType]) history!: CaseHistoryType[];
}

@ObjectType('CaseRightsHolder', { description: 'The rights holder named in notices by default' })
export class CaseRightsHolderType {
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => String, { nullable: true }) address!: string | null;
  @Field(() => String, { nullable: true }) phone!: string | null;
}

@ObjectType('CaseSettings')
export class CaseSettingsType {
  @Field(() => Boolean, { description: 'A match marked infringing joins its site\'s open case, or opens one' }) autoGroup!: boolean;
  @Field(() => CaseRightsHolderType, { nullable: true }) rightsHolder!: CaseRightsHolderType | null;
}

@InputType('CaseRightsHolderInput')
export class CaseRightsHolderInput {
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) email?: string;
  @Field(() => String, { nullable: true }) address?: string;
  @Field(() => String, { nullable: true }) phone?: string;
}

@InputType('TakedownNoticeInput')
export class TakedownNoticeInput {
  @Field(() => String, { description: 'dmca or dsa' }) type!: string;
  @Field(() => String, { nullable: true, description: 'fr or en; default: the account\'s language' }) lang?: string;
  @Field(() => String, { nullable: true }) rightsHolderName?: string;
  @Field(() => String, { nullable: true }) rightsHolderEmail?: string;
  @Field(() => String, { nullable: true }) rightsHolderAddress?: string;
  @Field(() => String, { nullable: true }) rightsHolderPhone?: string;
  @Field(() => String, { nullable: true }) signature?: string;
  @Field(() => String, { nullable: true }) recipientName?: string;
  @Field(() => String, { nullable: true }) recipientEmail?: string;
  @Field(() => String, { nullable: true }) explanation?: string;
}

const settingsType = (v: { auto_group: boolean; rights_holder: RightsHolderDefaults | null }): CaseSettingsType => ({
  autoGroup: v.auto_group,
  rightsHolder: v.rights_holder && { name: v.rights_holder.name ?? null, email: v.rights_holder.email ?? null, address: v.rights_holder.address ?? null, phone: v.rights_holder.phone ?? null },
});
const clean = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

const actorType = (a: Actor): CaseActorType => ({ type: a.type, accountId: a.account_id, applicationId: a.application_id });
const date = (v: string | null) => (v === null ? null : new Date(v));

function noticeType(n: NoticeRow, baseUrl: string): TakedownNoticeType {
  const v = noticeView(n, baseUrl);
  return {
    id: v.id, caseId: String(n.case_id), type: n.type, lang: n.lang, created: new Date(n.created), pdfUrl: v.pdf, textUrl: v.text, pdfSha256: n.pdf_sha256,
    pdfSize: n.pdf_size, body: n.body, sentAt: n.sent_at && new Date(n.sent_at), sentTo: n.sent_to, sentVia: n.sent_via, actor: actorType(n.actor), facts: factsType(n.facts),
  };
}

function factsType(f: NoticeFacts): TakedownNoticeFactsType {
  return {
    type: f.type, lang: f.lang, date: new Date(f.date), case: f.case, recipient: f.recipient, rightsHolder: f.rights_holder, signer: f.signer, explanation: f.explanation,
    works: f.works.map((w) => ({ mediaId: w.media_id, path: w.path, registered: new Date(w.registered) })),
    copies: f.copies.map((c) => ({
      matchId: c.match_id, pageUrl: c.page_url, imageUrl: c.image_url, firstSeen: new Date(c.first_seen), lastSeen: new Date(c.last_seen),
      evidence: c.evidence.map((e) => ({ packId: e.pack_id, sha256: e.sha256, captured: date(e.captured) })),
    })),
  };
}

const detailText = (v: unknown) => (typeof v === 'string' ? v : null);

/** A case with its matches, evidence, notices and history, as REST's detail view in camelCase. */
function caseType(c: CaseRow, baseUrl: string, parts: { matches: CaseMatchRow[]; evidence: EvidenceRow[]; notices: NoticeRow[]; history: HistoryRow[] }): CaseType {
  const { notices, history } = parts;
  const v = caseDetailView(c, baseUrl, parts);
  return {
    id: v.id, title: v.title, site: v.site, state: v.state, resolution: v.resolution, created: new Date(c.created), updated: new Date(c.updated), matchCount: c.match_count,
    matchIds: v.match_ids, evidenceCount: c.evidence_count, noticeCount: c.notice_count, lastNoticeSent: c.last_notice_sent && new Date(c.last_notice_sent),
    matches: v.matches.map((m) => ({ id: m.id, mediaId: m.media_id, site: m.site, pageUrl: m.page_url, imageUrl: m.image_url, firstSeen: date(m.first_seen), lastSeen: date(m.last_seen), added: new Date(m.added!) })),
    evidence: v.evidence.map((e) => ({ packId: e.pack_id, status: e.status, error: e.error, sha256: e.sha256, size: e.size, captured: date(e.captured), matchIds: e.match_ids, added: new Date(e.added!) })),
    notices: notices.map((n) => noticeType(n, baseUrl)),
    history: history.map((h) => ({
      at: new Date(h.at), action: h.action, fromState: h.from_state, toState: h.to_state, resolution: h.resolution, actor: actorType(h.actor), note: h.note,
      matchIds: (h.detail.match_ids as string[] | undefined) ?? [], noticeId: (h.detail.notice_id as string | undefined) ?? null, packId: (h.detail.pack_id as string | undefined) ?? null,
      title: detailText(h.detail.title), type: detailText(h.detail.type), lang: detailText(h.detail.lang), sentTo: detailText(h.detail.sent_to), sentVia: detailText(h.detail.sent_via),
      sha256: detailText(h.detail.sha256),
    })),
  };
}

/** The list's filters as GraphQL takes them (a state that is none is reported on `r`). */
function caseFilter(r: FieldReader, state: string | undefined | null, site: string | undefined | null): { state?: CaseState; site?: string } {
  if (state !== undefined && state !== null && !(CASE_STATES as readonly string[]).includes(state)) r.fail('state', 'invalid_choice', `state is one of ${CASE_STATES.join(', ')}.`);
  return { state: (state ?? undefined) as CaseState | undefined, site: site ?? undefined };
}

/** The same views as REST, in camelCase. */
@injectable()
@Resolver()
export class CasesResolver {
  constructor(
    @inject(CaseService) private readonly service: CaseService,
    @inject(NoticeService) private readonly notices: NoticeService,
  ) {}

  private async detail(accountId: number, c: CaseRow, baseUrl: string): Promise<CaseType> {
    const [matches, evidence, notices, history] = await Promise.all([this.service.caseMatches(c.id), this.service.evidencePacks(c.id), this.notices.list(accountId, c.id), this.service.history(c.id)]);
    return caseType(c, baseUrl, { matches, evidence, notices, history });
  }

  @Query(() => [CaseType], { description: 'The account\'s cases, newest first.' })
  async cases(
    @Arg('state', () => String, { nullable: true }) state: string | undefined,
    @Arg('site', () => String, { nullable: true }) site: string | undefined,
    @Arg('first', () => Int, { defaultValue: 100 }) first: number,
    @Arg('offset', () => Int, { defaultValue: 0 }) offset: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CaseType[]> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({}, []);
    const filter = caseFilter(r, state, site);
    if (first < 1 || first > 100) r.fail('first', 'invalid', 'first is between 1 and 100.');
    if (offset < 0) r.fail('offset', 'invalid', 'offset is 0 or more.');
    r.done();
    const [rows] = await this.service.list(p.accountId, filter, offset, first);
    // Every case's parts in four statements, not four per case.
    const ids = rows.map((c) => c.id);
    const [parts, notices] = await Promise.all([this.service.partsOf(ids), this.notices.listOf(p.accountId, ids)]);
    return rows.map((c) => caseType(c, ctx.baseUrl, { ...parts.get(c.id)!, notices: notices.get(c.id)! }));
  }

  @Query(() => Int, { description: 'How many cases the filters select (the count of GET /api/v4/cases/)' })
  async caseCount(
    @Arg('state', () => String, { nullable: true }) state: string | undefined,
    @Arg('site', () => String, { nullable: true }) site: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<number> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({}, []);
    const filter = caseFilter(r, state, site);
    r.done();
    const [, total] = await this.service.list(p.accountId, filter, 0, 1);
    return total;
  }

  @Query(() => CaseType, { description: 'One case (NOT_FOUND for another account\'s).' })
  async case(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<CaseType> {
    const p = requirePrincipal(ctx);
    return this.caseById(p.accountId, id, ctx.baseUrl);
  }

  /** One of the account's cases as `case` answers it (404 when there is none): also `CaseEvent.case`. */
  async caseById(accountId: number, id: string, baseUrl: string): Promise<CaseType> {
    return this.detail(accountId, await this.service.get(accountId, idParam(id)), baseUrl);
  }

  @Mutation(() => CaseType, { description: 'Open a case from matches reviewed as infringing.' })
  async createCase(
    @Arg('matchIds', () => [ID]) matchIds: string[],
    @Arg('title', () => String, { nullable: true }) title: string | undefined,
    @Arg('note', () => String, { nullable: true }) note: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CaseType> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({ match_ids: matchIds }, ['match_ids']);
    const ids = r.matchIds('match_ids');
    const t = r.text('title', { max: 200 }, title);
    const n = r.text('note', { max: 2000, multiline: true }, note);
    r.done();
    const c = await this.service.create(p, { matchIds: ids!, title: t, note: n });
    return this.detail(p.accountId, c, ctx.baseUrl);
  }

  @Mutation(() => CaseType, { description: 'Add matches (infringing) to, or take matches out of, an open case.' })
  async updateCaseMatches(
    @Arg('id', () => ID) id: string,
    @Arg('add', () => [ID], { nullable: true }) add: string[] | undefined,
    @Arg('remove', () => [ID], { nullable: true }) remove: string[] | undefined,
    @Arg('note', () => String, { nullable: true }) note: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CaseType> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({ add, remove }, ['add', 'remove']);
    const a = add?.length ? r.matchIds('add') : undefined;
    const d = remove?.length ? r.matchIds('remove') : undefined;
    const n = r.text('note', { max: 2000, multiline: true }, note);
    if (!a && !d) r.fail('add', 'required', 'Give add or remove (lists of match ids).');
    r.done();
    if (a) await this.service.addMatches(p, idParam(id), a, n);
    if (d) await this.service.removeMatches(p, idParam(id), d, n);
    return this.detail(p.accountId, await this.service.get(p.accountId, idParam(id)), ctx.baseUrl);
  }

  @Mutation(() => CaseType, { description: 'Move a case (open, resolved with a resolution, closed); notice_sent comes from sending a notice.' })
  async transitionCase(
    @Arg('id', () => ID) id: string,
    @Arg('state', () => String) state: string,
    @Arg('resolution', () => String, { nullable: true }) resolution: string | undefined,
    @Arg('note', () => String, { nullable: true }) note: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CaseType> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({}, []);
    const n = r.text('note', { max: 2000, multiline: true }, note);
    r.done();
    const c = await this.service.transition(p, idParam(id), { state, resolution: resolution ?? undefined, note: n });
    return this.detail(p.accountId, c, ctx.baseUrl);
  }

  @Mutation(() => TakedownNoticeType, { description: 'Make a DMCA or DSA article 16 notice for a case (text and PDF).' })
  async createTakedownNotice(@Arg('caseId', () => ID) caseId: string, @Arg('input', () => TakedownNoticeInput) input: TakedownNoticeInput, @Ctx() ctx: GraphQLContext): Promise<TakedownNoticeType> {
    const p = requirePrincipal(ctx);
    const holder = { name: input.rightsHolderName, email: input.rightsHolderEmail, address: input.rightsHolderAddress, phone: input.rightsHolderPhone };
    const recipient = { name: input.recipientName, email: input.recipientEmail };
    const some = (o: Record<string, unknown>) => (Object.keys(clean(o)).length ? clean(o) : undefined);
    const parsed = noticeInput({
      type: input.type, lang: input.lang ?? undefined, rights_holder: some(holder), recipient: some(recipient), signature: input.signature ?? undefined, explanation: input.explanation ?? undefined,
    });
    return noticeType(await this.notices.create(p, idParam(caseId), parsed), ctx.baseUrl);
  }

  @Mutation(() => TakedownNoticeType, { description: 'Mail a notice (PDF attached) to `to`; the case moves to notice_sent.' })
  async sendTakedownNotice(
    @Arg('caseId', () => ID) caseId: string,
    @Arg('noticeId', () => ID) noticeId: string,
    @Arg('to', () => String) to: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TakedownNoticeType> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({}, []);
    const address = r.email('to', to, true);
    r.done();
    return noticeType(await this.notices.send(p, idParam(caseId), idParam(noticeId), address!), ctx.baseUrl);
  }

  @Mutation(() => TakedownNoticeType, { description: 'Record a notice as sent by other means; the case moves to notice_sent.' })
  async recordTakedownNoticeSent(
    @Arg('caseId', () => ID) caseId: string,
    @Arg('noticeId', () => ID) noticeId: string,
    @Arg('to', () => String, { nullable: true }) to: string | undefined,
    @Arg('note', () => String, { nullable: true }) note: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TakedownNoticeType> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({}, []);
    const where = r.text('to', { max: 500 }, to);
    const n = r.text('note', { max: 2000, multiline: true }, note);
    r.done();
    return noticeType(await this.notices.recordSent(p, idParam(caseId), idParam(noticeId), { to: where, note: n }), ctx.baseUrl);
  }

  @Query(() => CaseSettingsType, { description: 'Case settings: automatic grouping by site, the default rights holder.' })
  async caseSettings(@Ctx() ctx: GraphQLContext): Promise<CaseSettingsType> {
    return settingsType(await this.service.settings(requirePrincipal(ctx).accountId));
  }

  @Mutation(() => CaseSettingsType, { description: 'Change the case settings (rightsHolder null clears it).' })
  async updateCaseSettings(
    @Arg('autoGroup', () => Boolean, { nullable: true }) autoGroup: boolean | undefined,
    @Arg('rightsHolder', () => CaseRightsHolderInput, { nullable: true }) rightsHolder: CaseRightsHolderInput | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CaseSettingsType> {
    const p = requirePrincipal(ctx);
    const body: Record<string, unknown> = { rights_holder: rightsHolder ? clean({ ...rightsHolder }) : undefined };
    const r = new FieldReader(body, ['rights_holder']);
    const holder = rightsHolder === null ? null : r.rightsHolder('rights_holder');
    r.done();
    return settingsType(await this.service.updateSettings(p.accountId, { auto_group: autoGroup ?? undefined, rights_holder: holder }));
  }

  @Mutation(() => CaseType, { description: 'Rename a case.' })
  async updateCase(@Arg('id', () => ID) id: string, @Arg('title', () => String) title: string, @Ctx() ctx: GraphQLContext): Promise<CaseType> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({}, []);
    const t = r.text('title', { max: 200, required: true }, title);
    r.done();
    return this.detail(p.accountId, await this.service.rename(p, idParam(id), t!), ctx.baseUrl);
  }

  @Mutation(() => Boolean, { description: 'Delete a case (refused once one of its notices was sent: close it instead).' })
  async deleteCase(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await this.notices.deleteFiles(await this.service.remove(requirePrincipal(ctx), idParam(id)));
    return true;
  }

  @Mutation(() => CaseType, { description: 'Attach an evidence pack (packId), or capture one of the case\'s matches (capture: true).' })
  async attachCaseEvidence(
    @Arg('id', () => ID) id: string,
    @Arg('packId', () => ID, { nullable: true }) packId: string | undefined,
    @Arg('capture', () => Boolean, { nullable: true }) capture: boolean | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CaseType> {
    const p = requirePrincipal(ctx);
    const r = new FieldReader({}, []);
    const pack = r.text('packId', { max: 100 }, packId);
    if ((pack === undefined) === !capture) r.fail('packId', 'invalid', 'Give either packId or capture: true.');
    r.done();
    return this.detail(p.accountId, await this.service.attachEvidence(p, idParam(id), { packId: pack, capture: capture ?? undefined }), ctx.baseUrl);
  }

  @Query(() => [TakedownNoticeType], { description: 'The notices of a case.' })
  async takedownNotices(@Arg('caseId', () => ID) caseId: string, @Ctx() ctx: GraphQLContext): Promise<TakedownNoticeType[]> {
    const p = requirePrincipal(ctx);
    const c = await this.service.get(p.accountId, idParam(caseId));
    return (await this.notices.list(p.accountId, c.id)).map((n) => noticeType(n, ctx.baseUrl));
  }

  @Query(() => TakedownNoticeType, { description: 'One notice of a case.' })
  async takedownNotice(@Arg('caseId', () => ID) caseId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<TakedownNoticeType> {
    const p = requirePrincipal(ctx);
    return noticeType(await this.notices.get(p.accountId, idParam(caseId), idParam(id)), ctx.baseUrl);
  }
}
