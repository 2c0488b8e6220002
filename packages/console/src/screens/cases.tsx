import { useState } from 'preact/hooks';
import { gql } from '../api';
import { CaseDocument, CasesDocument, CreateTakedownNoticeDocument } from '../graphql/generated';
import { formatDate, formatNumber, useLang, useT } from '../i18n';
import { href, type Route } from '../router';
import { ErrorBox, Field, InlineForm, ListState, Loading, Section, Table, bytes, useAction, useLoad } from '../ui';

/** Cases (issue 21): infringing matches grouped for action, their evidence packs and their takedown notices. */
export function CasesScreen({ route }: { route: Route }) {
  return route.path[1] ? <CaseDetail id={route.path[1]} /> : <CaseList />;
}

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
                  <span class={`badge case-${c.state}`}>{t(`cases.state.${c.state}` as 'cases.state.open')}</span>
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
  const [type, setType] = useState('dmca');
  const [holder, setHolder] = useState('');
  const [email, setEmail] = useState('');
  const notice = useAction(async () => {
    await gql(CreateTakedownNoticeDocument, { caseId: id, input: { type, lang, rightsHolderName: holder || null, rightsHolderEmail: email || null } });
    c.reload();
    return true;
  });
  const data = c.data;
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
              <span class={`badge case-${data.state}`}>{t(`cases.state.${data.state}` as 'cases.state.open')}</span>
              {data.resolution ? ` (${data.resolution})` : ''}
            </dd>
            <dt>{t('matches.site')}</dt>
            <dd>{data.site ?? '—'}</dd>
            <dt>{t('cases.updated')}</dt>
            <dd>{formatDate(lang, data.updated)}</dd>
          </dl>
          <div class="grid">
            <Section title={`${t('cases.matches')} (${formatNumber(lang, data.matchCount)})`} id="case-matches">
              <ul class="plain">
                {data.matches.map((m) => (
                  <li key={m.id}>
                    <a href={href(['matches', m.id])}>#{m.id}</a> {m.pageUrl ? <span class="ellipsis">{m.pageUrl}</span> : m.site}
                  </li>
                ))}
              </ul>
            </Section>
            <Section title={t('rights.packs')} id="case-evidence">
              {data.evidence.length === 0 ? (
                <p>{t('common.none')}</p>
              ) : (
                <ul class="plain">
                  {data.evidence.map((e) => (
                    <li key={e.packId}>
                      {t('rights.pack', { id: e.packId })} — {t(`rights.status.${e.status}` as 'rights.status.pending')}
                      {e.sha256 && (
                        <>
                          {' '}
                          <code title={e.sha256}>sha256 {e.sha256.slice(0, 12)}…</code> {e.size != null && bytes(e.size)}
                        </>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </Section>
          </div>
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
                    {n.sentAt && ` · ${t('cases.sent')} ${formatDate(lang, n.sentAt)}`}
                  </li>
                ))}
              </ul>
            )}
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
            <ErrorBox error={notice.error} />
          </Section>
        </>
      )}
    </>
  );
}
