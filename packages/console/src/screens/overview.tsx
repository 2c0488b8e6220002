import { gql } from '../api';
import { matchView, type MatchView } from '../graph';
import { OverviewDocument } from '../graphql/generated';
import { formatDate, formatNumber, useLang, useT } from '../i18n';
import { href } from '../router';
import { ErrorBox, Loading, Section, useLoad } from '../ui';

const DAYS = 14;

interface Data {
  media: number;
  matches: number;
  watermarked: number;
  crawls: number;
  recent: MatchView[];
  days: { day: string; count: number }[];
  sites: { domain: string; count: number }[];
}

async function load(): Promise<Data> {
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  const day = (offset: number) => new Date(today.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  // The matches per day are one histogram (UTC days, zeros included) from DAYS - 1 days ago to today.
  const data = await gql(OverviewDocument, { from: day(1 - DAYS), to: day(1) });
  const bySite = new Map<string, number>();
  for (const r of data.sites.results) {
    const domain = r.site?.domain;
    if (domain) bySite.set(domain, (bySite.get(domain) ?? 0) + r.matchCount);
  }
  return {
    media: data.account.imageCount,
    matches: data.all.count,
    watermarked: data.wm.count,
    crawls: data.crawlSessions.nodes.length,
    recent: data.all.results.map(matchView),
    days: data.perDay.buckets.map((b) => ({ day: (b.start ?? '').slice(0, 10), count: b.count })),
    sites: [...bySite].map(([domain, count]) => ({ domain, count })).sort((a, b) => b.count - a.count).slice(0, 8),
  };
}

export function OverviewScreen() {
  const t = useT();
  const lang = useLang();
  const { data, error, loading, reload } = useLoad(load);
  return (
    <>
      <h1>{t('overview.title')}</h1>
      <ErrorBox error={error} onRetry={reload} />
      {loading && !data && <Loading />}
      {data && (
        <>
          <ul class="stats">
            {(
              [
                ['overview.media', data.media, href(['media'])],
                ['overview.matches', data.matches, href(['matches'])],
                ['overview.watermarked', data.watermarked, href(['matches'], { watermarked: 'true' })],
                ['overview.crawls', data.crawls, href(['crawls'])],
              ] as const
            ).map(([key, n, link]) => (
              <li key={key}>
                <a href={link}>
                  <span class="stat-value">{formatNumber(lang, n)}</span>
                  <span class="stat-label">{t(key)}</span>
                </a>
              </li>
            ))}
          </ul>
          <div class="grid">
            <Section title={t('overview.overTime')} id="over-time">
              <Chart days={data.days} label={t('overview.chartLabel')} />
            </Section>
            <Section title={t('overview.topSites')} id="top-sites">
              {data.sites.length === 0 ? (
                <p>{t('common.none')}</p>
              ) : (
                <ol class="bars">
                  {data.sites.map((s) => (
                    <li key={s.domain}>
                      <a href={href(['matches'], { site: s.domain })}>{s.domain}</a>
                      <span class="bar" style={{ width: `${(100 * s.count) / data.sites[0]!.count}%` }} aria-hidden="true" />
                      <span class="num">{formatNumber(lang, s.count)}</span>
                    </li>
                  ))}
                </ol>
              )}
            </Section>
          </div>
          <Section title={t('overview.recent')} id="recent">
            {data.recent.length === 0 ? (
              <p>{t('common.none')}</p>
            ) : (
              <ul class="recent">
                {data.recent.map((m) => (
                  <li key={m.id}>
                    <a href={href(['matches', m.id])}>
                      {m.media && <img src={m.media.thumbnail} alt="" width={48} height={48} loading="lazy" />}
                      <span>
                        <strong>{m.site?.domain ?? m.page.url ?? '—'}</strong>
                        <span class="muted">
                          {formatDate(lang, m.dateCreated)} · {m.media?.path ?? ''}
                        </span>
                      </span>
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </>
      )}
    </>
  );
}

/** Matches per day as an SVG bar chart with its figures in a table for assistive technology. */
function Chart({ days, label }: { days: { day: string; count: number }[]; label: string }) {
  const max = Math.max(1, ...days.map((d) => d.count));
  const w = 100 / days.length;
  return (
    <figure class="chart">
      <svg viewBox="0 0 100 40" preserveAspectRatio="none" role="img" aria-label={`${label}: ${days.map((d) => `${d.day} ${d.count}`).join(', ')}`}>
        {days.map((d, i) => (
          <rect key={d.day} x={i * w + w * 0.1} width={w * 0.8} y={40 - (38 * d.count) / max} height={(38 * d.count) / max} />
        ))}
      </svg>
      <figcaption class="axis">
        <span>{days[0]?.day}</span>
        <span>{days[days.length - 1]?.day}</span>
      </figcaption>
    </figure>
  );
}
