import { useRef, useState } from 'preact/hooks';
import { upload } from '../api';
import { useT } from '../i18n';
import { href } from '../router';
import { ErrorBox, Progress, useAction } from '../ui';

interface SearchMatch {
  id: string | number | null;
  watermarked?: boolean;
  image?: { thumbnail?: string | null; url?: string | null; media_path?: string };
  video?: { thumbnail?: string | null; media_path?: string };
  media?: { media_path?: string };
}

/** Search by image: which registered media a picture is a copy of (synchronous search, the file uploaded with progress). */
export function ImageSearch() {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [results, setResults] = useState<SearchMatch[] | null>(null);
  const search = useAction(async (file: File) => {
    const form = new FormData();
    form.set('sync', 'true');
    form.set('file', file);
    setResults(null);
    setProgress(0);
    try {
      const res = await upload<{ matches: SearchMatch[] }>('POST', '/api/v4/searches/', form, null, (f) => setProgress(f < 1 ? f : null));
      setResults(res.matches ?? []);
    } finally {
      setProgress(null);
    }
  });
  return (
    <details class="card search">
      <summary>{t('search.title')}</summary>
      <p class="muted">{t('search.help')}</p>
      <label>
        {t('search.file')}
        <input ref={input} type="file" accept="image/jpeg,image/png,image/gif,image/webp" onChange={(e) => e.currentTarget.files?.[0] && search.call(e.currentTarget.files[0])} />
      </label>
      {search.busy && <Progress value={progress} label={progress === null ? t('search.searching') : t('media.uploading')} />}
      <ErrorBox error={search.error} />
      {results && (
        <div role="status">
          <p>{t('search.results', { count: results.length })}</p>
          <ul class="recent">
            {results.map((m, i) => {
              const path = m.image?.media_path ?? m.video?.media_path ?? m.media?.media_path ?? '';
              const thumbnail = m.image?.thumbnail ?? m.video?.thumbnail;
              return (
              <li key={`${m.id}-${i}`}>
                <a href={href(['media'], { path: path.replace(/\/[^/]+$/, ''), media: path })}>
                  {thumbnail && <img src={thumbnail} alt="" width={48} height={48} />}
                  <span>
                    <strong>{path || String(m.id)}</strong>
                    <span class="muted">{m.watermarked ? t('matches.verdictYes') : t('matches.verdictNo')}</span>
                  </span>
                </a>
              </li>
              );
            })}
          </ul>
        </div>
      )}
    </details>
  );
}
