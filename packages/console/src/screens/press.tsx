import { useRef, useState } from 'preact/hooks';
import { gql, upload } from '../api';
import { PressIssuesDocument } from '../graphql/generated';
import type { Me } from '../app';
import { formatDate, useLang, useT } from '../i18n';
import { ErrorBox, InlineForm, ListState, Progress, Section, Table, useAction, useLoad, usePolling } from '../ui';

export function PressScreen({ me }: { me: Me }) {
  const t = useT();
  const lang = useLang();
  const allowed = me.permissions.includes('press:ingest');
  const list = useLoad(() => (allowed ? gql(PressIssuesDocument).then((d) => d.pressIssues.nodes) : Promise.resolve([])), [allowed]);
  usePolling(Boolean(list.data?.some((i) => i.status === 'pending' || i.status === 'running')), list.reload);
  const [name, setName] = useState('');
  const [date, setDate] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const file = useRef<HTMLInputElement>(null);
  const ingest = useAction(async () => {
    const form = new FormData();
    form.set('name', name);
    form.set('date', date);
    form.set('file', file.current!.files![0]!);
    setProgress(0);
    try {
      await upload('POST', '/api/v4/press/issues/', form, null, setProgress);
      // Ready for the next issue.
      setName('');
      setDate('');
      file.current!.value = '';
    } finally {
      setProgress(null);
    }
    list.reload();
  });
  if (!allowed) {
    return (
      <>
        <h1>{t('press.title')}</h1>
        <p>{t('press.notAllowed')}</p>
      </>
    );
  }
  return (
    <>
      <h1>{t('press.title')}</h1>
      <Section title={t('press.ingest')} id="ingest">
        <InlineForm onSubmit={() => ingest.call()}>
          <label>
            {t('press.name')}
            <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            {t('press.date')}
            <input type="date" required value={date} onInput={(e) => setDate(e.currentTarget.value)} />
          </label>
          <label>
            {t('press.file')}
            <input type="file" accept="application/pdf" required ref={file} />
          </label>
          <button type="submit" class="primary" disabled={ingest.busy}>
            {t('press.ingest')}
          </button>
          {progress !== null && <Progress value={progress} label={t('media.uploading')} />}
        </InlineForm>
        <ErrorBox error={ingest.error} />
      </Section>
      <ListState list={list}>
        {(rows) => (
          <Table columns={[t('press.name'), t('press.date'), t('press.status'), t('press.pages'), t('nav.matches')]}>
            {rows.map((i) => (
              <tr key={i.id}>
                <td>{i.name}</td>
                <td>{i.date}</td>
                <td>
                  <span class={`badge state-${i.status}`}>{i.status}</span>
                </td>
                <td>
                  {i.pages.total === null ? '—' : <progress max={i.pages.total || 1} value={i.pages.done} aria-label={`${t('press.pages')} ${i.pages.done}/${i.pages.total}`} />} {i.pages.done}/{i.pages.total ?? '?'}
                </td>
                <td>{i.matchesFound}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      <p class="muted">{list.data?.[0] ? formatDate(lang, list.data[0].created) : ''}</p>
    </>
  );
}
