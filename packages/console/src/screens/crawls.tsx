import { useState } from 'preact/hooks';
import { gql } from '../api';
import {
  CrawlAgainDocument,
  CrawlSessionDocument,
  CrawlSessionsDocument,
  DeleteCrawlSessionDocument,
  PauseCrawlSessionDocument,
  ResumeCrawlSessionDocument,
  StartCrawlSessionDocument,
  type CrawlSessionFieldsFragment,
  type CrawlSessionQuery,
} from '../graphql/generated';
import { formatDate, formatNumber, useLang, useT } from '../i18n';
import { go, href, type Route } from '../router';
import { ErrorBox, Field, InlineForm, ListState, Loading, Section, Table, useAction, useLoad, usePolling } from '../ui';

type Session = CrawlSessionFieldsFragment;
type Detail = NonNullable<CrawlSessionQuery['crawlSession']>;


const active = (s: Session) => s.state === 'running' || s.state === 'pending';

export function CrawlsScreen({ route }: { route: Route }) {
  return route.path[1] ? <CrawlDetail id={Number(route.path[1])} /> : <CrawlList />;
}

function CrawlList() {
  const t = useT();
  const lang = useLang();
  const list = useLoad(() => gql(CrawlSessionsDocument).then((d) => d.crawlSessions.nodes));
  usePolling(Boolean(list.data?.some(active)), list.reload);
  const [url, setUrl] = useState('');
  const [search, setSearch] = useState(true);
  const start = useAction(async () => {
    const { startCrawlSession } = await gql(StartCrawlSessionDocument, { url, search });
    go(['crawls', String(startCrawlSession.id)]);
  });
  return (
    <>
      <h1>{t('crawls.title')}</h1>
      <Section title={t('crawls.new')} id="new-crawl">
        <InlineForm onSubmit={() => start.call()}>
          <Field label={t('crawls.url')} name="url" error={start.error}>
            {(id, d) => <input id={id} type="url" required placeholder="https://example.com/" value={url} aria-describedby={d} onInput={(e) => setUrl(e.currentTarget.value)} />}
          </Field>
          <label class="check">
            <input type="checkbox" checked={search} onChange={(e) => setSearch(e.currentTarget.checked)} />
            {t('crawls.search')}
          </label>
          <button type="submit" class="primary" disabled={start.busy}>
            {start.busy ? t('crawls.starting') : t('crawls.start')}
          </button>
        </InlineForm>
        <ErrorBox error={start.error} />
      </Section>
      <ListState list={list}>
        {(rows) => (
          <Table columns={[t('crawls.url'), t('crawls.state'), t('crawls.cycles'), t('crawls.created')]}>
            {rows.map((s) => (
              <tr key={s.id}>
                <td>
                  <a href={href(['crawls', String(s.id)])}>{s.startUrls[0] ?? `#${s.id}`}</a>
                </td>
                <td>
                  <State state={s.state} />
                </td>
                <td>{formatNumber(lang, s.cycleCount)}</td>
                <td>{formatDate(lang, s.ctime)}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
    </>
  );
}

function State({ state }: { state: string }) {
  return <span class={`badge state-${state}`}>{state}</span>;
}

function CrawlDetail({ id }: { id: number }) {
  const t = useT();
  const lang = useLang();
  const s = useLoad(() => gql(CrawlSessionDocument, { id }).then((d): Detail | null => d.crawlSession), [id]);
  usePolling(Boolean(s.data && active(s.data)), s.reload);
  const act = useAction(async (what: 'pause' | 'resume' | 'again' | 'delete') => {
    if (what === 'delete') {
      await gql(DeleteCrawlSessionDocument, { id });
      return go(['crawls']);
    }
    if (what === 'pause') await gql(PauseCrawlSessionDocument, { id });
    else if (what === 'resume') await gql(ResumeCrawlSessionDocument, { id });
    else await gql(CrawlAgainDocument, { id });
    s.reload();
  });
  const data = s.data;
  return (
    <>
      <p>
        <a href={href(['crawls'])}>← {t('crawls.title')}</a>
      </p>
      <ErrorBox error={s.error} onRetry={s.reload} />
      {s.loading && !data && <Loading />}
      {data && (
        <>
          <h1>{data.startUrls[0] ?? `#${data.id}`}</h1>
          <dl class="facts">
            <dt>{t('crawls.state')}</dt>
            <dd>
              <State state={data.state} /> {data.reason ?? ''}
            </dd>
            <dt>{t('crawls.cycles')}</dt>
            <dd>{formatNumber(lang, data.cycleCount)}</dd>
            <dt>{t('crawls.pages')}</dt>
            <dd>{formatNumber(lang, data.progress.pages)}</dd>
            <dt>{t('crawls.images')}</dt>
            <dd>{formatNumber(lang, data.progress.images)}</dd>
            <dt>{t('crawls.created')}</dt>
            <dd>{formatDate(lang, data.ctime)}</dd>
          </dl>
          {active(data) && (
            <p role="status" class="muted">
              <span class="spinner" aria-hidden="true" /> {t('crawls.running')}
            </p>
          )}
          <div class="actions">
            {active(data) ? (
              <button type="button" disabled={act.busy} onClick={() => act.call('pause')}>
                {t('crawls.pause')}
              </button>
            ) : data.state === 'paused' ? (
              <button type="button" disabled={act.busy} onClick={() => act.call('resume')}>
                {t('crawls.resume')}
              </button>
            ) : (
              <button type="button" disabled={act.busy} onClick={() => act.call('again')}>
                {t('crawls.again')}
              </button>
            )}
            <a class="button" href={href(['matches'])}>
              {t('nav.matches')}
            </a>
            <button type="button" class="danger" disabled={act.busy} onClick={() => confirm(t('crawls.confirmDelete')) && act.call('delete')}>
              {t('common.delete')}
            </button>
          </div>
          <ErrorBox error={act.error} />
          <h2>{t('crawls.batches')}</h2>
          {(data.batches?.nodes ?? []).length === 0 ? (
            <p>{t('common.none')}</p>
          ) : (
            <Table columns={['#', t('crawls.created'), ...(['pages', 'images', 'videos', 'documents'] as const).map((k) => t(`crawls.${k}`))]}>
              {data.batches!.nodes.map((b) => (
                <tr key={b.id}>
                  <td>
                    {b.id} ({b.crawlCycle})
                  </td>
                  <td>{formatDate(lang, b.ctime)}</td>
                  {(['pages', 'images', 'videos', 'documents'] as const).map((k) => (
                    <td key={k}>
                      {formatNumber(lang, b[k].count)}{' '}
                      {(['log', 'tar', 'warc'] as const).map((f) =>
                        b[k][f] ? (
                          <a key={f} href={b[k][f]!} download aria-label={`${t(`crawls.${k}`)} ${t(`crawls.${f}`)} ${b.id}`}>
                            {t(`crawls.${f}`)}{' '}
                          </a>
                        ) : null,
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </>
  );
}
