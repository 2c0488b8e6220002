import { useEffect, useRef, useState } from 'preact/hooks';
import { ConsoleError, gql } from '../api';
import { matchView, REVIEW_STATES, type MatchFilterInput, type MatchView, type ReviewState } from '../graph';
import { CaptureEvidenceDocument, CasesDocument, CreateCaseDocument, EvidencePacksDocument, MatchDetailDocument, MatchPageDocument, MatchReviewHistoryDocument, ReviewMatchesDocument, UpdateMatchDocument, type MatchReviewHistoryQuery } from '../graphql/generated';
import { formatDate, formatNumber, useLang, useT } from '../i18n';
import { go, href, type Route } from '../router';
import { ErrorBox, InlineForm, Loading, Section, bytes, useAction, useLoad, usePolling } from '../ui';
import { ImageSearch } from './image-search';

const ROW = 72;
const OVERSCAN = 8;

/** The filter form's fields, kept in the address (so a filtered list can be bookmarked and shared). */
const FILTER_KEYS = ['site', 'watermarked', 'review', 'from', 'to', 'tag', 'mediaPath'] as const;

function filterOf(q: URLSearchParams): MatchFilterInput {
  const f: MatchFilterInput = {};
  if (q.get('site')) f.siteDomain = { equals: q.get('site')! };
  if (q.get('watermarked') === 'true' || q.get('watermarked') === 'false') f.watermarked = { equals: q.get('watermarked') === 'true' };
  if (q.get('from') || q.get('to')) f.dateCreated = { ...(q.get('from') ? { gte: q.get('from')! } : {}), ...(q.get('to') ? { lte: q.get('to')! } : {}) };
  if (q.get('tag')) f.tags = { in: [q.get('tag')!] };
  if (q.get('mediaPath')) f.mediaPath = { startsWith: q.get('mediaPath')! };
  if (q.get('review')) f.reviewState = { equals: q.get('review')!.toLowerCase() };
  return f;
}

/** The ids of the list last shown, for "next"/"previous" in the side-by-side view. */
let lastList: string[] = [];
let lastQuery = '';

export function MatchesScreen({ route }: { route: Route }) {
  return route.path[1] ? <MatchDetail key={route.path[1]} id={route.path[1]} /> : <MatchList query={route.query} />;
}

function ReviewBadge({ state }: { state: ReviewState | undefined }) {
  const t = useT();
  const s = state ?? 'NEW';
  return <span class={`badge review-${s.toLowerCase()}`}>{t(`review.${s}`)}</span>;
}

function MatchList({ query }: { query: URLSearchParams }) {
  const t = useT();
  const lang = useLang();
  const filter = filterOf(query);
  const key = JSON.stringify(filter);
  const [rows, setRows] = useState<MatchView[]>([]);
  const [reviews, setReviews] = useState<Map<string, ReviewState>>(new Map());
  const [count, setCount] = useState<number | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [active, setActive] = useState(0);
  /** A row asked for (End) that is not loaded yet: focused once its page arrives. */
  const [target, setTarget] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const generation = useRef(0);

  const load = async (cursor: string | null, reset: boolean) => {
    const gen = reset ? ++generation.current : generation.current;
    setLoading(true);
    setError(null);
    try {
      const { matches } = await gql(MatchPageDocument, { filter, cursor });
      if (gen !== generation.current) return;
      const more = matches.results.map(matchView);
      const states = matches.results.map((r) => [r.id, r.review.state] as const);
      setReviews((old) => new Map([...(reset ? [] : old), ...states]));
      setRows((r) => (reset ? more : [...r, ...more]));
      setCount(matches.count);
      setNext(matches.next);
    } catch (err) {
      if (gen === generation.current) setError(err);
    } finally {
      if (gen === generation.current) setLoading(false);
    }
  };

  useEffect(() => {
    setRows([]);
    setActive(0);
    setTarget(null);
    box.current?.scrollTo(0, 0);
    void load(null, true);
  }, [key]);

  useEffect(() => {
    lastList = rows.map((r) => r.id);
    lastQuery = query.toString();
  }, [rows]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setHeight(el.clientHeight || 600);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Near the end of what is loaded: the next page, once.
  useEffect(() => {
    if (next && !loading && !error && (scrollTop + height) / ROW > rows.length - OVERSCAN * 2) void load(next, false);
  }, [scrollTop, height, rows.length, next, loading]);

  // The list is as tall as the whole result (not only the pages loaded), so the scrollbar and End
  // reach the last row: the effect above then pages by cursor until the rows on screen are there.
  const total = Math.max(rows.length, count ?? 0);
  useEffect(() => {
    if (target !== null && target < rows.length) {
      setTarget(null);
      focusRow(target);
    }
  }, [target, rows.length]);

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = Math.min(total, Math.ceil((scrollTop + height) / ROW) + OVERSCAN);

  const focusRow = (i: number) => {
    const clamped = Math.max(0, Math.min(rows.length - 1, i));
    setActive(clamped);
    const el = box.current!;
    if (clamped * ROW < el.scrollTop) el.scrollTop = clamped * ROW;
    else if ((clamped + 1) * ROW > el.scrollTop + el.clientHeight) el.scrollTop = (clamped + 1) * ROW - el.clientHeight;
    requestAnimationFrame(() => (el.querySelector(`[data-row="${clamped}"]`) as HTMLElement | null)?.focus());
  };

  const onKey = (e: KeyboardEvent) => {
    if ((e.target as HTMLElement).tagName === 'INPUT' || (e.target as HTMLElement).tagName === 'SELECT') return;
    if (e.key === 'j' || e.key === 'ArrowDown') (e.preventDefault(), focusRow(active + 1));
    else if (e.key === 'k' || e.key === 'ArrowUp') (e.preventDefault(), focusRow(active - 1));
    else if (e.key === 'Home') (e.preventDefault(), focusRow(0));
    else if (e.key === 'End') {
      e.preventDefault();
      if (total > rows.length) {
        setTarget(total - 1);
        box.current!.scrollTop = total * ROW;
      } else focusRow(rows.length - 1);
    }
  };

  return (
    <>
      <h1>{t('matches.title')}</h1>
      <ImageSearch />
      <Filters query={query} />
      <p class="muted" role="status">
        {count !== null && t(count === 1 ? 'matches.countOne' : 'matches.count', { count: formatNumber(lang, count) })} · {t('matches.shortcuts')}
        {last > rows.length && count !== null && ` · ${t('matches.loadingTo', { loaded: formatNumber(lang, rows.length), count: formatNumber(lang, count) })}`}
      </p>
      <ErrorBox error={error} onRetry={() => load(rows.length ? next : null, rows.length === 0)} />
      <div class="vlist" ref={box} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)} onKeyDown={onKey}>
        <ul aria-label={t('matches.listLabel')} style={{ height: `${total * ROW}px` }}>
          {rows.slice(first, Math.min(last, rows.length)).map((m, j) => {
            const i = first + j;
            return (
              <li key={m.id} style={{ top: `${i * ROW}px`, height: `${ROW}px` }} aria-setsize={count ?? -1} aria-posinset={i + 1}>
                <a
                  href={href(['matches', m.id])}
                  data-row={i}
                  tabIndex={i === active ? 0 : -1}
                  onFocus={() => setActive(i)}
                  class="row"
                >
                  {m.media ? <img src={m.media.thumbnail} alt="" width={56} height={56} loading="lazy" /> : <span class="noimg" />}
                  <span class="cell grow">
                    <strong>{m.site?.domain ?? '—'}</strong>
                    <span class="muted ellipsis">{m.page.headline ?? m.page.url ?? ''}</span>
                  </span>
                  <span class="cell hide-narrow ellipsis">{m.media?.path ?? ''}</span>
                  <ReviewBadge state={reviews.get(m.id)} />
                  <span class={`badge hide-narrow-badge ${m.watermarked ? 'ok' : ''}`}>{m.watermarked ? t('matches.verdictYes') : t('matches.verdictNo')}</span>
                  <span class="cell date">{formatDate(lang, m.dateCreated)}</span>
                </a>
              </li>
            );
          })}
        </ul>
        {loading && <Loading />}
        {!loading && count === 0 && <p class="empty">{t('common.none')}</p>}
      </div>
    </>
  );
}

function Filters({ query }: { query: URLSearchParams }) {
  const t = useT();
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(FILTER_KEYS.map((k) => [k, query.get(k) ?? ''])));
  useEffect(() => setValues(Object.fromEntries(FILTER_KEYS.map((k) => [k, query.get(k) ?? '']))), [query.toString()]);
  const set = (k: string) => (e: Event) => setValues({ ...values, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <details class="filters-box" open={matchMedia('(min-width: 701px)').matches || FILTER_KEYS.some((k) => query.get(k))}>
      <summary>{t('matches.filters')}</summary>
    <form
      class="filters"
      aria-label={t('matches.filters')}
      onSubmit={(e) => {
        e.preventDefault();
        go(['matches'], values);
      }}
    >
      <label>
        {t('matches.site')}
        <input name="site" value={values.site} onInput={set('site')} placeholder="example.com" />
      </label>
      <label>
        {t('matches.watermarked')}
        <select name="watermarked" value={values.watermarked} onChange={set('watermarked')}>
          <option value="">{t('matches.any')}</option>
          <option value="true">{t('matches.verdictYes')}</option>
          <option value="false">{t('matches.verdictNo')}</option>
        </select>
      </label>
      <label>
        {t('review.title')}
        <select name="review" value={values.review} onChange={set('review')}>
          <option value="">{t('matches.any')}</option>
          {REVIEW_STATES.map((r) => (
            <option key={r.state} value={r.state.toLowerCase()}>
              {t(`review.${r.state}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('matches.from')}
        <input type="date" name="from" value={values.from} onInput={set('from')} />
      </label>
      <label>
        {t('matches.to')}
        <input type="date" name="to" value={values.to} onInput={set('to')} />
      </label>
      <label>
        {t('matches.tag')}
        <input name="tag" value={values.tag} onInput={set('tag')} />
      </label>
      <label>
        {t('matches.mediaPath')}
        <input name="mediaPath" value={values.mediaPath} onInput={set('mediaPath')} />
      </label>
      <div class="actions">
        <button type="submit" class="primary">
          {t('common.apply')}
        </button>
        <button type="button" onClick={() => go(['matches'])}>
          {t('common.reset')}
        </button>
      </div>
    </form>
    </details>
  );
}

type ReviewChange = NonNullable<MatchReviewHistoryQuery['matchReviewHistory']>[number];

/** Who changed the state and why (a licence names itself in its note), oldest first: the audit trail of the review. */
function ReviewHistory({ changes }: { changes: ReviewChange[] | null | undefined }) {
  const t = useT();
  const lang = useLang();
  if (!changes) return null;
  const by = (a: ReviewChange['actor']) =>
    a.type === 'licensee' ? t('review.byLicensee') : a.type === 'application' ? t('review.byApplication', { id: String(a.applicationId ?? '') }) : t('review.byAccount', { who: a.username ?? '' });
  return (
    <details class="review-history" open={changes.length > 0 && changes.length <= 5}>
      <summary>
        {t('review.history')} ({changes.length})
      </summary>
      {changes.length === 0 ? (
        <p class="muted">{t('review.historyEmpty')}</p>
      ) : (
        <ol class="plain history">
          {changes.map((c) => (
            <li key={c.id}>
              {formatDate(lang, c.changedAt)} — {t(`review.${c.previousState}`)} → {t(`review.${c.state}`)} · {by(c.actor)}
              {c.note && (
                <>
                  {' '}
                  <q class="muted">{c.note}</q>
                </>
              )}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}

function MatchDetail({ id }: { id: string }) {
  const t = useT();
  const lang = useLang();
  const { data, error, loading, reload, set } = useLoad(
    () =>
      gql(MatchDetailDocument, { id }).then((d) => (d.match ? { ...matchView(d.match), review: d.match.review.state } : null)),
    [id],
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [id]);
  const index = lastList.indexOf(id);
  const back = () => (location.hash = `#/matches${lastQuery ? `?${lastQuery}` : ''}`);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement).tagName === 'INPUT') return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const shortcut = REVIEW_STATES.find((r) => r.key === e.key);
      if (shortcut && data) return void review.call(shortcut.state);
      if (e.key === 'Escape') back();
      else if ((e.key === 'j' || e.key === 'ArrowRight') && index >= 0 && lastList[index + 1]) go(['matches', lastList[index + 1]!]);
      else if ((e.key === 'k' || e.key === 'ArrowLeft') && index > 0) go(['matches', lastList[index - 1]!]);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [id, index, data]);
  const review = useAction(async (state: ReviewState) => {
    await gql(ReviewMatchesDocument, { ids: [id], state });
    set({ ...data!, review: state });
    history.reload();
    return true;
  });
  const history = useLoad(() => gql(MatchReviewHistoryDocument, { id }).then((d) => d.matchReviewHistory), [id]);
  const rights = useAction(async (what: 'evidence' | 'case') => {
    if (what === 'evidence') {
      const { captureEvidence } = await gql(CaptureEvidenceDocument, { ids: [id] });
      setPacksVersion((v) => v + 1);
      return { text: t('rights.evidenceQueued', { id: captureEvidence.id, status: captureEvidence.status }) };
    }
    const { createCase } = await gql(CreateCaseDocument, { ids: [id], title: data?.site?.domain ?? undefined });
    cases.reload();
    return { text: t('rights.caseCreated', { id: createCase.id }), link: href(['cases', createCase.id]) };
  });
  // The case already holding this match (a match is in one case at a time; infringing matches may join their site's case on their own).
  const cases = useLoad(() => gql(CasesDocument).then((d) => d.cases.find((c) => c.state !== 'closed' && c.matches.some((m) => m.id === id)) ?? null), [id]);
  const [rightsDone, setRightsDone] = useState<{ text: string; link?: string } | null>(null);
  const [packsVersion, setPacksVersion] = useState(0);
  const [tags, setTags] = useState('');
  useEffect(() => setTags(data?.tags.join(', ') ?? ''), [data]);
  const save = useAction(async (patch: { tags?: string[]; export?: boolean }) => {
    const { updateMatch } = await gql(UpdateMatchDocument, { id, ...patch });
    set({ ...matchView(updateMatch), review: data!.review });
  });
  return (
    <>
      <p>
        <a href={`#/matches${lastQuery ? `?${lastQuery}` : ''}`}>← {t('matches.back')}</a>
      </p>
      <ErrorBox error={error} onRetry={reload} />
      {loading && !data && <Loading />}
      {!loading && !error && !data && <ErrorBox error={new ConsoleError('', 404, 'not_found')} />}
      {data && (
        <article class="match-detail">
          <h1 tabIndex={-1} ref={heading}>
            {data.site?.domain ?? data.page.url ?? id}
          </h1>
          <p class={`verdict ${data.watermarked ? 'ok' : ''}`}>
            <strong>{t('matches.verdict')}:</strong> {data.watermarked ? t('matches.verdictYes') : t('matches.verdictNo')}
          </p>
          <fieldset class="review">
            <legend>
              {t('review.title')}: <ReviewBadge state={data.review} />
            </legend>
            {REVIEW_STATES.map((r) => (
              <button
                key={r.state}
                type="button"
                aria-pressed={data.review === r.state}
                aria-keyshortcuts={r.key}
                disabled={review.busy}
                onClick={() => review.call(r.state)}
              >
                {t(`review.${r.state}`)} <kbd>{r.key}</kbd>
              </button>
            ))}
            <ErrorBox error={review.error} />
          </fieldset>
          <ReviewHistory changes={history.data} />
          <div class="side-by-side">
            <figure>
              <figcaption>{t('matches.original')}</figcaption>
              {data.media ? (
                <Outlined src={data.media.image} alt={`${t('matches.original')}: ${data.media.path}`} outline={data.region?.original} label={t('matches.regionOriginal')} />
              ) : (
                <p>—</p>
              )}
              {data.media && <a href={href(['media'], { path: data.media.path.replace(/\/[^/]+$/, ''), media: data.media.path })}>{data.media.path}</a>}
            </figure>
            <figure>
              <figcaption>{t('matches.copy')}</figcaption>
              {data.page.imageUrl ? (
                <Outlined src={data.page.imageUrl} alt={`${t('matches.copy')}: ${data.page.imageUrl}`} outline={data.region?.copy} label={t('matches.regionCopy')} missing={t('matches.imageMissing')} />
              ) : (
                <p>{t('matches.noCopy')}</p>
              )}
              {data.page.imageUrl && (
                <a href={data.page.imageUrl} rel="noreferrer noopener" target="_blank" class="ellipsis">
                  {data.page.imageUrl}
                </a>
              )}
            </figure>
          </div>
          <dl class="facts">
            <dt>{t('matches.page')}</dt>
            <dd>
              {data.page.url ? (
                <a href={data.page.url} rel="noreferrer noopener" target="_blank">
                  {data.page.headline ?? data.page.url}
                </a>
              ) : (
                '—'
              )}
            </dd>
            <dt>{t('matches.site')}</dt>
            <dd>
              {data.site?.domain ?? '—'}
              {data.site?.country ? ` (${data.site.country})` : ''}
            </dd>
            <dt>{t('matches.date')}</dt>
            <dd>{formatDate(lang, data.dateCreated)}</dd>
            {data.sessions.length > 0 && (
              <>
                <dt>{t('matches.sessions')}</dt>
                <dd>
                  {data.sessions.map((s) => (
                    <a key={s} href={href(['crawls', String(s)])}>
                      #{s}{' '}
                    </a>
                  ))}
                </dd>
              </>
            )}
          </dl>
          <InlineForm onSubmit={() => save.call({ tags: tags.split(',').map((s) => s.trim()).filter(Boolean) })}>
            <label>
              {t('matches.tags')}
              <input name="tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
            </label>
            <label class="check">
              <input type="checkbox" checked={data.export} onChange={(e) => save.call({ export: e.currentTarget.checked })} />
              {t('matches.export')}
            </label>
            <button type="submit" disabled={save.busy}>
              {save.busy ? t('common.saving') : t('common.save')}
            </button>
          </InlineForm>
          <ErrorBox error={save.error} />
          <div class="actions">
            <button type="button" disabled={rights.busy} onClick={() => rights.call('evidence').then((m) => m && setRightsDone(m))}>
              {t('rights.capture')}
            </button>
            {cases.data ? (
              <a href={href(['cases', cases.data.id])}>{t('rights.inCase', { title: cases.data.title, state: t(`cases.state.${cases.data.state}` as 'cases.state.open') })}</a>
            ) : (
              <button type="button" disabled={rights.busy || cases.loading} onClick={() => rights.call('case').then((m) => m && setRightsDone(m))}>
                {t('rights.openCase')}
              </button>
            )}
          </div>
          {rightsDone && (
            <p role="status">
              {rightsDone.text} {rightsDone.link && <a href={rightsDone.link}>{t('cases.open')}</a>}
            </p>
          )}
          <ErrorBox error={rights.error} />
          <MatchEvidence id={id} version={packsVersion} />
          <p class="muted">{t('matches.shortcuts')} {t('review.shortcuts')}</p>
        </article>
      )}
    </>
  );
}

/** The evidence packs holding this match: status, SHA-256, size and the WACZ download once complete. */
function MatchEvidence({ id, version }: { id: string; version: number }) {
  const t = useT();
  const lang = useLang();
  const packs = useLoad(() => gql(EvidencePacksDocument).then((d) => d.evidencePacks.filter((p) => p.matchIds.includes(id))), [id, version]);
  usePolling(Boolean(packs.data?.some((p) => p.status === 'pending')), packs.reload);
  return (
    <Section title={t('rights.packs')} id="match-evidence">
      <ErrorBox error={packs.error} onRetry={packs.reload} />
      {packs.data && packs.data.length === 0 && <p>{t('common.none')}</p>}
      <ul class="plain packs">
        {packs.data?.map((p) => (
          <li key={p.id}>
            {t('rights.pack', { id: p.id })} — {formatDate(lang, p.createdAt)} — <span class={`badge pack-${p.status}`}>{t(`rights.status.${p.status}` as 'rights.status.pending')}</span>
            {p.downloadUrl && (
              <>
                {' '}
                <a href={p.downloadUrl} download>
                  {t('rights.download')} (WACZ{p.size != null ? `, ${bytes(p.size)}` : ''})
                </a>
              </>
            )}
            {p.sha256 && (
              <>
                {' '}
                <code title={p.sha256}>sha256 {p.sha256.slice(0, 12)}…</code>
              </>
            )}
            {p.error && <span class="field-error"> {p.error}</span>}
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** An image with the matched region drawn over it (corners in fractions of the image's size). */
function Outlined({ src, alt, outline, label, missing }: { src: string; alt: string; outline?: number[]; label: string; missing?: string }) {
  // A copy on another site may be gone (or refuse us): say so instead of a broken image.
  // (MatchDetail is keyed by match, so a new match starts afresh.)
  const [failed, setFailed] = useState(false);
  const points = outline && outline.length === 8 ? [0, 1, 2, 3].map((i) => `${outline[2 * i]},${outline[2 * i + 1]}`).join(' ') : null;
  if (failed && missing) return <p class="muted image-missing">{missing}</p>;
  return (
    <div class="outlined">
      <img src={src} alt={alt} referrerpolicy="no-referrer" onError={() => setFailed(true)} />
      {points && (
        <svg viewBox="0 0 1 1" preserveAspectRatio="none" role="img" aria-label={label}>
          <polygon points={points} vector-effect="non-scaling-stroke" />
        </svg>
      )}
    </div>
  );
}
