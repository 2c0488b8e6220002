import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, upload } from '../api';
import { DeleteMediaDocument, MediaFolderDocument, RegisterMediaDocument, SubFoldersDocument, UpdateMediaMetadataDocument, WatermarkingJobDocument, type MediaFieldsFragment } from '../graphql/generated';
import type { Me } from '../app';
import { formatDate, useLang, useT } from '../i18n';
import { go, href, type Route } from '../router';
import { ErrorBox, InlineForm, Loading, Progress, Section, bytes, explain, useAction, useLoad } from '../ui';

type MediaItem = MediaFieldsFragment;

/** The page size of the MediaFolder operation. */
const PAGE_SIZE = 60;
const parentOf = (path: string) => path.replace(/\/[^/]+$/, '') || path;
/** The REST file path of a media (each segment encoded). */
const restPath = (path: string) => `/api/v4/media${path.split('/').map(encodeURIComponent).join('/')}`;

export function MediaScreen({ me, route }: { me: Me; route: Route }) {
  const t = useT();
  const path = route.query.get('path') || me.home;
  const page = Number(route.query.get('page') ?? 1) || 1;
  const selected = route.query.get('media');
  const folder = useLoad(
    () => gql(MediaFolderDocument, { path, page }).then((d) => d.mediaFolder),
    [path, page],
  );
  const pages = Math.max(1, Math.ceil((folder.data?.childrenCount ?? 0) / PAGE_SIZE));
  const items = folder.data?.children ?? [];
  const current = items.find((m) => m.path === selected) ?? null;
  const segments = path.split('/').filter(Boolean);
  return (
    <>
      <h1>{t('media.title')}</h1>
      <nav aria-label={t('media.folder')} class="crumbs">
        <ol>
          {segments.map((s, i) => {
            const p = `/${segments.slice(0, i + 1).join('/')}`;
            return (
              <li key={p}>
                <a href={href(['media'], { path: p })} aria-current={p === path ? 'location' : undefined}>
                  {s}
                </a>
              </li>
            );
          })}
        </ol>
      </nav>
      <div class="media-layout">
        <Section title={t('media.tree')} id="tree">
          <Tree root={me.home} current={path} />
        </Section>
        <div>
          <Uploads folder={path} onRegistered={folder.reload} />
          <ErrorBox error={folder.error} onRetry={folder.reload} />
          {folder.loading && !folder.data && <Loading />}
          {folder.data && items.length === 0 && <p>{t('media.empty')}</p>}
          <ul class="media-grid">
            {items.map((m) => (
              <li key={m.id}>
                {m.type === 'folder' ? (
                  <a class="tile folder" href={href(['media'], { path: m.path })}>
                    <span class="folder-icon" aria-hidden="true">
                      ▤
                    </span>
                    <span class="tile-name">{m.name}</span>
                  </a>
                ) : (
                  <a class="tile" href={href(['media'], { path, page: page > 1 ? String(page) : undefined, media: m.path })} aria-current={m.path === selected ? 'true' : undefined}>
                    {(m.image?.thumbnail ?? m.video?.thumbnail) && <img src={(m.image?.thumbnail ?? m.video?.thumbnail)!} alt="" loading="lazy" width={140} height={140} />}
                    <span class="tile-name">{m.name}</span>
                  </a>
                )}
              </li>
            ))}
          </ul>
          {pages > 1 && (
            <nav class="pager" aria-label={t('media.page', { page, pages })}>
              <button type="button" disabled={page <= 1} onClick={() => go(['media'], { path, page: String(page - 1) })}>
                {t('media.previous')}
              </button>
              <span>{t('media.page', { page, pages })}</span>
              <button type="button" disabled={page >= pages} onClick={() => go(['media'], { path, page: String(page + 1) })}>
                {t('media.next')}
              </button>
            </nav>
          )}
        </div>
        {current && <Details key={current.path} media={current} onChanged={folder.reload} onClose={() => go(['media'], { path })} />}
      </div>
    </>
  );
}

/** The folder tree: each folder opens to its subfolders, loaded when opened. */
function Tree({ root, current }: { root: string; current: string }) {
  return (
    <ul class="tree">
      <TreeNode path={root} name={root.slice(1)} current={current} open />
    </ul>
  );
}

function TreeNode({ path, name, current, open: initiallyOpen = false }: { path: string; name: string; current: string; open?: boolean }) {
  const [open, setOpen] = useState(initiallyOpen || current.startsWith(`${path}/`));
  const [children, setChildren] = useState<{ path: string; name: string }[] | null>(null);
  useEffect(() => {
    if (!open || children) return;
    void gql(SubFoldersDocument, { path }).then(
      (d) => setChildren(d.mediaFolder.children.filter((c) => c.type === 'folder')),
      () => setChildren([]),
    );
  }, [open, path, children]);
  return (
    <li>
      <button type="button" class="twisty" aria-expanded={open} aria-label={name} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'}
      </button>
      <a href={href(['media'], { path })} aria-current={path === current ? 'location' : undefined}>
        {name}
      </a>
      {open && children && children.length > 0 && (
        <ul>
          {children.map((c) => (
            <TreeNode key={c.path} path={c.path} name={c.name} current={current} />
          ))}
        </ul>
      )}
    </li>
  );
}

interface Upload {
  id: number;
  name: string;
  kind: 'watermark' | 'register';
  phase: 'uploading' | 'working' | 'done' | 'failed';
  progress: number | null;
  result?: { watermarked: string; registration: string; original: string };
  registered?: string;
  error?: unknown;
}

let uploadIds = 0;

/** Drag-and-drop (or chosen) files: images are watermarked, .lmk files registered in the folder. */
function Uploads({ folder, onRegistered }: { folder: string; onRegistered: () => void }) {
  const t = useT();
  const [list, setList] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const patch = (id: number, p: Partial<Upload>) => setList((l) => l.map((u) => (u.id === id ? { ...u, ...p } : u)));

  const start = async (file: File) => {
    const id = ++uploadIds;
    const lmk = /\.lmk$/i.test(file.name);
    setList((l) => [{ id, name: file.name, kind: lmk ? 'register' : 'watermark', phase: 'uploading', progress: 0 }, ...l]);
    try {
      if (lmk) {
        const name = file.name.replace(/\.lmk$/i, '');
        const media = await upload<{ path?: string }>('PUT', restPath(`${folder}/${name}`), file, 'application/lmk', (f) => patch(id, { progress: f }));
        patch(id, { phase: 'done', progress: 1, registered: media?.path ?? `${folder}/${name}` });
        onRegistered();
        return;
      }
      const type = file.type || 'image/jpeg';
      const job = await upload<{ id: string }>('POST', '/api/v4/watermarking/?sync=false', file, type, (f) => patch(id, { progress: f }));
      patch(id, { phase: 'working', progress: null });
      for (let wait = 500; ; wait = Math.min(3000, wait * 1.5)) {
        const { watermarkingJob: j } = await gql(WatermarkingJobDocument, { id: job.id });
        if (j.status === 'complete' && j.result) return patch(id, { phase: 'done', result: j.result });
        if (j.status === 'failed') return patch(id, { phase: 'failed', error: new Error(j.error?.details ?? 'failed') });
        await new Promise((r) => setTimeout(r, wait));
      }
    } catch (error) {
      patch(id, { phase: 'failed', error });
    }
  };

  const register = async (u: Upload) => {
    const name = u.name.replace(/\.[^.]+$/, '') + (u.name.match(/\.[^.]+$/)?.[0] ?? '');
    patch(u.id, { phase: 'working' });
    try {
      const { registerMedia } = await gql(RegisterMediaDocument, { path: `${folder}/${name}`, url: u.result!.registration });
      patch(u.id, { phase: 'done', registered: registerMedia.path });
      onRegistered();
    } catch (error) {
      patch(u.id, { phase: 'failed', error });
    }
  };

  return (
    <section class="card" aria-labelledby="uploads-title">
      <h2 id="uploads-title">{t('media.uploads')}</h2>
      <div
        class={`dropzone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          for (const f of Array.from(e.dataTransfer?.files ?? [])) void start(f);
        }}
      >
        <p>{t('media.drop')}</p>
        <input
          ref={input}
          id="upload-input"
          type="file"
          multiple
          accept="image/jpeg,image/png,image/gif,.lmk"
          class="visually-hidden"
          aria-label={t('media.choose')}
          tabIndex={-1}
          onChange={(e) => {
            for (const f of Array.from(e.currentTarget.files ?? [])) void start(f);
            e.currentTarget.value = '';
          }}
        />
        <button type="button" onClick={() => input.current?.click()}>
          {t('media.choose')}
        </button>
      </div>
      {list.length > 0 && (
        <ul class="uploads" aria-live="polite">
          {list.map((u) => (
            <li key={u.id} class={`upload ${u.phase}`}>
              <span class="upload-name">{u.name}</span>
              {u.phase === 'uploading' && <Progress value={u.progress} label={t('media.uploading')} />}
              {u.phase === 'working' && <Progress value={null} label={u.kind === 'register' || u.result ? t('media.registering') : t('media.watermarking')} />}
              {u.phase === 'failed' && <UploadError error={u.error} />}
              {u.registered && (
                <span>
                  {t('media.registered')}: <a href={href(['media'], { path: folder, media: u.registered })}>{u.registered}</a>
                </span>
              )}
              {u.result && !u.registered && u.phase === 'done' && (
                <span class="actions">
                  <a href={u.result.watermarked} download>
                    {t('common.download')} ({t('media.watermarked')})
                  </a>
                  <a href={u.result.registration} download>
                    {t('common.download')} ({t('media.lmk')})
                  </a>
                  <button type="button" class="primary" onClick={() => register(u)}>
                    {t('media.register')}
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function UploadError({ error }: { error: unknown }) {
  const t = useT();
  const { title, detail } = explain(t, error);
  return (
    <span class="field-error" role="alert">
      {title} {detail}
    </span>
  );
}

function Details({ media, onChanged, onClose }: { media: MediaItem; onChanged: () => void; onClose: () => void }) {
  const t = useT();
  const lang = useLang();
  const [meta, setMeta] = useState<[string, string][]>(Object.entries(media.metadata).filter(([k]) => k.startsWith('user.')).map(([k, v]) => [k, String(v)]));
  const [key, setKey] = useState('user.');
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const save = useAction(async (next: [string, string][]) => {
    const removed = meta.filter(([k]) => !next.some(([n]) => n === k)).map(([k]) => [k, null] as const);
    await gql(UpdateMediaMetadataDocument, { path: media.path, metadata: Object.fromEntries([...removed, ...next]) });
    setMeta(next);
    setSaved(true);
  });
  const remove = useAction(async () => {
    await gql(DeleteMediaDocument, { path: media.path });
    onClose();
    onChanged();
  });
  return (
    <aside class="card details" aria-labelledby="details-title">
      <h2 id="details-title" tabIndex={-1} ref={heading}>
        {t('media.details', { name: media.name })}
      </h2>
      {media.image && <img class="preview" src={media.image.url} alt={media.name} />}
      <dl class="facts">
        <dt>{t('media.type')}</dt>
        <dd>
          {media.type}
          {media.watermarked ? ` · ${t('media.watermarked')}` : ''}
        </dd>
        <dt>{t('media.created')}</dt>
        <dd>{formatDate(lang, media.created)}</dd>
        <dt>{t('media.size')}</dt>
        <dd>{bytes(media.diskUsage)}</dd>
      </dl>
      <p>
        <a href={href(['matches'], { mediaPath: media.path })}>{t('nav.matches')}</a>
      </p>
      <h3>{t('media.metadata')}</h3>
      <ul class="meta">
        {meta.map(([k, v]) => (
          <li key={k}>
            <code>{k}</code> {v}{' '}
            <button type="button" class="link-button" aria-label={`${t('common.delete')} ${k}`} onClick={() => save.call(meta.filter(([x]) => x !== k))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <InlineForm
        onSubmit={() => {
          setSaved(false);
          return save.call([...meta.filter(([k]) => k !== key), [key, value]]).then(() => {
            setKey('user.');
            setValue('');
          });
        }}
      >
        <label>
          {t('media.addKey')}
          <input value={key} required pattern="user\..+" onInput={(e) => setKey(e.currentTarget.value)} />
        </label>
        <label>
          {t('media.addValue')}
          <input value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={save.busy}>
          {save.busy ? t('common.saving') : t('media.add')}
        </button>
      </InlineForm>
      {saved && !save.busy && <p role="status">{t('common.saved')}</p>}
      <ErrorBox error={save.error ?? remove.error} />
      <div class="actions">
        <button type="button" class="danger" disabled={remove.busy} onClick={() => confirm(t('media.confirmDelete', { name: media.name })) && remove.call()}>
          {t('common.delete')}
        </button>
        <button type="button" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
    </aside>
  );
}
