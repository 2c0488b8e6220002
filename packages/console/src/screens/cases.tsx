import { useState } from 'preact/hooks';
import { gql } from '../api';
import {
  CaptureCaseEvidenceDocument,
  CaseDocument,
  CasesDocument,
  CreateTakedownNoticeDocument,
  DeleteCaseDocument,
  RecordTakedownNoticeSentDocument,
  RemoveCaseMatchesDocument,
  RenameCaseDocument,
  SendTakedownNoticeDocument,
  TransitionCaseDocument,
  type CaseDetailFieldsFragment,
  type NoticeFieldsFragment,
} from '../graphql/generated';
import { formatDate, formatNumber, useLang, useT, type Key } from '../i18n';
import { go, href, type Route } from '../router';
import { ErrorBox, Field, InlineForm, ListState, Loading, Section, Table, bytes, useAction, useLoad, usePolling } from '../ui';

/** Cases (issue 21): infringing matches grouped for action, their evidence packs and their takedown notices. */
export function CasesScreen({ route }: { route: Route }) {
  // Keyed by id: another case starts from its own values, not the fields typed on the previous one.
  return route.path[1] ? <CaseDetail key={route.path[1]} id={route.path[1]} /> : <CaseList />;
}

const stateKey = (state: string) => `cases.state.${state}` as Key;
/** Matches may be taken out, evidence added and notices made or sent only while a case is open or notice_sent. */
const isActive = (state: string) => state === 'open' || state === 'notice_sent';
const RESOLUTIONS = ['removed', 'licensed_afterwards', 'paid'] as const;

function CaseList() {
  const t = useT();
  const lang = useLang();
  const list = useLoad(() => gql(CasesDocument).then((d) => d.cases));
  return (
    <>
      <h1>{t('cases.title')}</h1>
      <p class="muted">{t('cases.how')}</p>
      <ListState list={list}>
        {(rows) => (
          <Table columns={[t('cases.caseTitle'), t('matches.site'), t('cases.state'), t('cases.matches'), t('cases.updated')]}>
            {rows.map((c) => (
              <tr key={c.id}>
                <td>
                  <a href={href(['cases', c.id])}>{c.title}</a>
                </td>
                <td>{c.site ?? '—'}</td>
                <td>
                  <span class={`badge case-${c.state}`}>{t(stateKey(c.state))}</span>
                </td>
                <td>{formatNumber(lang, c.matchCount)}</td>
                <td>{formatDate(lang, c.updated)}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
    </>
  );
}

function CaseDetail({ id }: { id: string }) {
  const t = useT();
  const lang = useLang();
  const c = useLoad(() => gql(CaseDocument, { id }).then((d) => d.case), [id]);
  const data = c.data;
  // A pack captured for the case is built in the background: its status follows until it is done.
  usePolling(!!data?.evidence.some((e) => e.status === 'pending'), c.reload);
  return (
    <>
      <p>
        <a href={href(['cases'])}>← {t('cases.title')}</a>
      </p>
      <ErrorBox error={c.error} onRetry={c.reload} />
      {c.loading && !data && <Loading />}
      {data && (
        <>
          <h1>{data.title}</h1>
          <dl class="facts">
            <dt>{t('cases.state')}</dt>
            <dd>
              <span class={`badge case-${data.state}`}>{t(stateKey(data.state))}</span>
              {data.resolution ? ` (${t(`cases.resolution.${data.resolution}` as Key)})` : ''}
            </dd>
            <dt>{t('matches.site')}</dt>
            <dd>{data.site ?? '—'}</dd>
            <dt>{t('cases.updated')}</dt>
            <dd>{formatDate(lang, data.updated)}</dd>
          </dl>
          <CaseActions data={data} onChange={c.set} />
          <div class="grid">
            <CaseMatches data={data} onChange={c.set} />
            <CaseEvidence data={data} onChange={c.set} />
          </div>
          <CaseNotices data={data} onChange={c.reload} />
          <CaseHistory data={data} />
        </>
      )}
    </>
  );
}

type Part = { data: CaseDetailFieldsFragment; onChange: (c: CaseDetailFieldsFragment) => void };

/** Moves between states (notice_sent comes from sending a notice), renaming and deleting. */
function CaseActions({ data, onChange }: Part) {
  const t = useT();
  const [resolution, setResolution] = useState<string>('removed');
  const [note, setNote] = useState('');
  const [title, setTitle] = useState(data.title);
  const [done, setDone] = useState('');
  const move = useAction(async (state: string) => {
    const { transitionCase } = await gql(TransitionCaseDocument, { id: data.id, state, resolution: state === 'resolved' ? resolution : null, note: note || null });
    onChange(transitionCase);
    setNote('');
    setDone(t('cases.moved', { state: t(stateKey(state)) }));
  });
  const rename = useAction(async () => {
    const { updateCase } = await gql(RenameCaseDocument, { id: data.id, title });
    onChange(updateCase);
    setDone(t('cases.renamed'));
  });
  const remove = useAction(async () => {
    if (!confirm(t('cases.deleteConfirm', { title: data.title }))) return;
    await gql(DeleteCaseDocument, { id: data.id });
    go(['cases']);
  });
  const busy = move.busy || rename.busy || remove.busy;
  // One message at a time: an action that starts clears what the others said.
  const start = (run: () => unknown) => {
    for (const a of [move, rename, remove]) a.setError(null);
    setDone('');
    return run();
  };
  return (
    <Section title={t('cases.actions')} id="case-actions">
      {data.state === 'closed' ? (
        <p>{t('cases.closedFinal')}</p>
      ) : (
        <InlineForm onSubmit={() => start(() => move.call('resolved'))} label={t('cases.move')}>
          {isActive(data.state) && (
            <Field label={t('cases.resolution')} name="resolution" id="case-resolution" error={move.error}>
              {(fid, d) => (
                <select id={fid} aria-describedby={d} value={resolution} onChange={(e) => setResolution(e.currentTarget.value)}>
                  {RESOLUTIONS.map((r) => (
                    <option key={r} value={r}>
                      {t(`cases.resolution.${r}` as Key)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <Field label={t('cases.note')} name="note" id="case-note" error={move.error}>
            {(fid, d) => <input id={fid} aria-describedby={d} value={note} maxLength={2000} onInput={(e) => setNote(e.currentTarget.value)} />}
          </Field>
          {isActive(data.state) && (
            <button type="submit" class="primary" disabled={busy}>
              {t('cases.resolve')}
            </button>
          )}
          {data.state === 'resolved' && (
            <button type="button" disabled={busy} onClick={() => start(() => move.call('open'))}>
              {t('cases.reopen')}
            </button>
          )}
          <button type="button" disabled={busy} onClick={() => start(() => move.call('closed'))}>
            {t('cases.close')}
          </button>
        </InlineForm>
      )}
      {move.busy && <Loading />}
      <ErrorBox error={move.error} />
      <InlineForm onSubmit={() => start(() => rename.call())} label={t('cases.rename')}>
        <Field label={t('cases.caseTitle')} name="title" id="case-title" error={rename.error}>
          {(fid, d) => <input id={fid} required maxLength={200} aria-describedby={d} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={busy || !title.trim() || title === data.title}>
          {t('cases.rename')}
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => start(() => remove.call())}>
          {t('cases.delete')}
        </button>
      </InlineForm>
      <ErrorBox error={rename.error ?? remove.error} />
      {done && !move.error && !rename.error && !remove.error && (
        <p role="status" class="muted">
          {done}
        </p>
      )}
    </Section>
  );
}

function CaseMatches({ data, onChange }: Part) {
  const t = useT();
  const lang = useLang();
  const takeOut = useAction(async (matchId: string) => onChange((await gql(RemoveCaseMatchesDocument, { id: data.id, remove: [matchId] })).updateCaseMatches));
  return (
    <Section title={`${t('cases.matches')} (${formatNumber(lang, data.matchCount)})`} id="case-matches">
      <ul class="plain">
        {data.matches.map((m) => (
          <li key={m.id}>
            <a href={href(['matches', m.id])}>#{m.id}</a> {m.pageUrl ? <span class="ellipsis">{m.pageUrl}</span> : m.site}{' '}
            {data.state === 'open' && (
              <button type="button" class="link-button" disabled={takeOut.busy} aria-label={t('cases.takeOutMatch', { id: m.id })} onClick={() => takeOut.call(m.id)}>
                {t('cases.takeOut')}
              </button>
            )}
          </li>
        ))}
      </ul>
      <ErrorBox error={takeOut.error} />
    </Section>
  );
}

function CaseEvidence({ data, onChange }: Part) {
  const t = useT();
  const capture = useAction(async () => onChange((await gql(CaptureCaseEvidenceDocument, { id: data.id })).attachCaseEvidence));
  return (
    <Section title={t('rights.packs')} id="case-evidence">
      {data.evidence.length === 0 ? (
        <p>{t('common.none')}</p>
      ) : (
        <ul class="plain">
          {data.evidence.map((e) => (
            <li key={e.packId}>
              {t('rights.pack', { id: e.packId })} — {t(`rights.status.${e.status}` as Key)}
              {e.sha256 && (
                <>
                  {' '}
                  <code title={e.sha256}>sha256 {e.sha256.slice(0, 12)}…</code> {e.size != null && bytes(e.size)}
                </>
              )}
              {e.error && <span class="field-error"> {e.error}</span>}
            </li>
          ))}
        </ul>
      )}
      {isActive(data.state) && data.matchCount > 0 && (
        <button type="button" disabled={capture.busy} onClick={() => capture.call()}>
          {capture.busy ? t('cases.capturing') : t('cases.capture')}
        </button>
      )}
      <ErrorBox error={capture.error} />
    </Section>
  );
}

function CaseNotices({ data, onChange }: { data: CaseDetailFieldsFragment; onChange: () => void }) {
  const t = useT();
  const lang = useLang();
  const [type, setType] = useState('dmca');
  const [holder, setHolder] = useState('');
  const [email, setEmail] = useState('');
  const notice = useAction(async () => {
    await gql(CreateTakedownNoticeDocument, { caseId: data.id, input: { type, lang, rightsHolderName: holder || null, rightsHolderEmail: email || null } });
    onChange();
    return true;
  });
  return (
    <Section title={t('cases.notices')} id="case-notices">
      {data.notices.length === 0 ? (
        <p>{t('common.none')}</p>
      ) : (
        <ul class="plain notices">
          {data.notices.map((n) => (
            <li key={n.id}>
              <strong>{n.type.toUpperCase()}</strong> ({n.lang}) {formatDate(lang, n.created)} — <a href={n.textUrl}>{t('cases.noticeText')}</a> ·{' '}
              <a href={n.pdfUrl} download>
                {t('cases.noticePdf')}
              </a>{' '}
              <code title={n.pdfSha256}>sha256 {n.pdfSha256.slice(0, 12)}…</code>
              {n.sentAt && ` · ${t(n.sentVia === 'mail' ? 'cases.sentMail' : 'cases.sentOther', { to: n.sentTo ?? '—' })} ${formatDate(lang, n.sentAt)}`}
              {!n.sentAt && isActive(data.state) && <SendNotice caseId={data.id} notice={n} onSent={onChange} />}
            </li>
          ))}
        </ul>
      )}
      {isActive(data.state) && (
        <InlineForm onSubmit={() => notice.call()} label={t('cases.makeNotice')}>
          <Field label={t('cases.noticeType')} name="type" id="notice-type" error={notice.error}>
            {(fid, d) => (
              <select id={fid} aria-describedby={d} value={type} onChange={(e) => setType(e.currentTarget.value)}>
                <option value="dmca">DMCA (17 U.S.C. § 512)</option>
                <option value="dsa">DSA (art. 16)</option>
              </select>
            )}
          </Field>
          <Field label={t('cases.holderName')} name="rights_holder" id="notice-holder" error={notice.error}>
            {(fid, d) => <input id={fid} aria-describedby={d} value={holder} placeholder={t('cases.holderDefault')} onInput={(e) => setHolder(e.currentTarget.value)} />}
          </Field>
          <Field label={t('cases.holderEmail')} name="rights_holder.email" id="notice-email" error={notice.error}>
            {(fid, d) => <input id={fid} type="email" aria-describedby={d} value={email} placeholder={t('cases.holderDefault')} onInput={(e) => setEmail(e.currentTarget.value)} />}
          </Field>
          <button type="submit" class="primary" disabled={notice.busy}>
            {notice.busy ? t('cases.making') : t('cases.makeNotice')}
          </button>
        </InlineForm>
      )}
      <ErrorBox error={notice.error} />
    </Section>
  );
}

/** A notice not sent yet: mailed by the server to an address, or recorded as sent by other means. */
function SendNotice({ caseId, notice, onSent }: { caseId: string; notice: NoticeFieldsFragment; onSent: () => void }) {
  const t = useT();
  const [to, setTo] = useState('');
  const [where, setWhere] = useState('');
  const mail = useAction(async () => {
    await gql(SendTakedownNoticeDocument, { caseId, noticeId: notice.id, to });
    onSent();
  });
  const record = useAction(async () => {
    await gql(RecordTakedownNoticeSentDocument, { caseId, noticeId: notice.id, to: where || null });
    onSent();
  });
  return (
    <div class="send-notice">
      <InlineForm onSubmit={() => mail.call()} label={t('cases.sendMail')}>
        <Field label={t('cases.sendTo')} name="to" id={`notice-${notice.id}-to`} error={mail.error}>
          {(fid, d) => <input id={fid} type="email" required aria-describedby={d} value={to} placeholder="abuse@example.com" onInput={(e) => setTo(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={mail.busy || record.busy}>
          {mail.busy ? t('cases.sending') : t('cases.sendMail')}
        </button>
      </InlineForm>
      <ErrorBox error={mail.error} />
      <InlineForm onSubmit={() => record.call()} label={t('cases.recordSent')}>
        <Field label={t('cases.sentWhere')} name="to" id={`notice-${notice.id}-where`} error={record.error}>
          {(fid, d) => <input id={fid} maxLength={500} aria-describedby={d} value={where} onInput={(e) => setWhere(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={mail.busy || record.busy}>
          {t('cases.recordSent')}
        </button>
      </InlineForm>
      <ErrorBox error={record.error} />
    </div>
  );
}

/** What happened to the case, oldest first, as REST's history lists it. */
function CaseHistory({ data }: { data: CaseDetailFieldsFragment }) {
  const t = useT();
  const lang = useLang();
  return (
    <Section title={t('cases.history')} id="case-history">
      <ol class="plain history">
        {data.history.map((h, i) => (
          <li key={i}>
            {formatDate(lang, h.at)} — {t(`cases.action.${h.action}` as Key)}
            {h.fromState && h.toState && h.fromState !== h.toState && ` · ${t(stateKey(h.fromState))} → ${t(stateKey(h.toState))}`}
            {h.resolution && ` (${t(`cases.resolution.${h.resolution}` as Key)})`}
            {h.matchIds.length > 0 && ` #${h.matchIds.join(', #')}`}
            {/* What the change touched: the new title, the notice and where it went, the pack's hash. */}
            {h.title && ` · “${h.title}”`}
            {h.type && ` · ${h.type.toUpperCase()}`}
            {h.sentTo && ` · ${t(h.sentVia === 'mail' ? 'cases.sentMail' : 'cases.sentOther', { to: h.sentTo })}`}
            {h.sha256 && (
              <>
                {' · sha256 '}
                <code>{h.sha256.slice(0, 12)}…</code>
              </>
            )}
            {h.actor.type === 'system' && ` · ${t('cases.bySystem')}`}
            {h.note && (
              <>
                {' '}
                <q class="muted">{h.note}</q>
              </>
            )}
          </li>
        ))}
      </ol>
    </Section>
  );
}
