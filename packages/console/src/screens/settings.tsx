import { useState } from 'preact/hooks';
import { gql } from '../api';
import {
  AccountApiKeyDocument,
  BrowserSessionsDocument,
  CaseSettingsDocument,
  ChangePasswordDocument,
  CreateLicenseeDocument,
  CreateOAuthApplicationDocument,
  CreateWebhookEndpointDocument,
  DeleteLicenseeDocument,
  DeleteOAuthApplicationDocument,
  DeleteWebhookEndpointDocument,
  LicenseesDocument,
  OAuthApplicationsDocument,
  ProfileDocument,
  RevokeBrowserSessionDocument,
  RevokeOtherBrowserSessionsDocument,
  RotateAccountApiKeyDocument,
  TestWebhookEndpointDocument,
  UpdateCaseSettingsDocument,
  UpdateAccountSettingsDocument,
  WebhookDeliveriesDocument,
  WebhookEndpointsDocument,
  type AccountSettingsInput,
  type SettingsFieldsFragment,
} from '../graphql/generated';
import type { Me } from '../app';
import { formatDate, useLang, useT, type Key, type Lang } from '../i18n';
import { ErrorBox, Field, InlineForm, Loading, SecretOnce, Section, useAction, useLoad } from '../ui';

const NOTIFICATIONS = [
  'notifyUpload',
  'notifyPdf',
  'notifyWeb',
  'notifyDownload',
  'notifyPdfDaily',
  'notifyPdfWeekly',
  'notifyMatchUrlDaily',
  'notifyMatchUrlWeekly',
  'notifyMatchSiteDaily',
  'notifyMatchSiteWeekly',
  'notifyFavorite',
  'notifyNewsletter',
  'notifyOffers',
] as const satisfies readonly (keyof SettingsFieldsFragment['notifications'])[];

/** A settings form's save button (it says when it is saving). */
function SaveButton({ busy }: { busy: boolean }) {
  const t = useT();
  return (
    <button type="submit" disabled={busy}>
      {busy ? t('common.saving') : t('common.save')}
    </button>
  );
}

/** What came of a save: "Saved.", or the error in words. */
function SaveOutcome({ saved, action }: { saved: boolean; action: { busy: boolean; error: unknown } }) {
  const t = useT();
  return (
    <>
      {saved && !action.busy && <p role="status">{t('common.saved')}</p>}
      <ErrorBox error={action.error} />
    </>
  );
}

export function SettingsScreen({ me, onLang }: { me: Me; onLang: (l: Lang) => void }) {
  const t = useT();
  return (
    <>
      <h1>{t('settings.title')}</h1>
      <div class="grid">
        <Profile me={me} onLang={onLang} />
        <Password />
        <ApiKey />
        <OAuthApps />
        <Webhooks />
        <Licensees />
        <CaseSettings />
        <Sessions />
      </div>
    </>
  );
}

function Profile({ me, onLang }: { me: Me; onLang: (l: Lang) => void }) {
  const t = useT();
  const data = useLoad(() =>
    gql(ProfileDocument),
  );
  const [countries, setCountries] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (input: AccountSettingsInput) => {
    setSaved(false);
    const { updateAccountSettings } = await gql(UpdateAccountSettingsDocument, { input });
    data.set({ ...data.data!, accountSettings: updateAccountSettings });
    if (input.lang) onLang(updateAccountSettings.lang === 'fr' ? 'fr' : 'en');
    setSaved(true);
    return true;
  });
  const s = data.data?.accountSettings;
  return (
    <Section title={t('settings.profile')} id="profile">
      <ErrorBox error={data.error} onRetry={data.reload} />
      {!data.data && data.loading && <Loading />}
      {data.data && s && (
        <>
          <dl class="facts">
            <dt>{t('settings.username')}</dt>
            <dd>{me.username}</dd>
            <dt>{t('settings.fullName')}</dt>
            <dd>{me.fullName || '—'}</dd>
            <dt>{t('settings.email')}</dt>
            <dd>{data.data.account.email}</dd>
            <dt>{t('settings.home')}</dt>
            <dd>{me.home}</dd>
            <dt>{t('settings.quota')}</dt>
            <dd>
              {data.data.account.imageCount}
              {data.data.account.imageQuota !== null ? ` / ${data.data.account.imageQuota}` : ''}
            </dd>
          </dl>
          <Field label={t('settings.language')} name="lang" error={save.error}>
            {(id) => (
              <select id={id} value={s.lang} onChange={(e) => save.call({ lang: e.currentTarget.value })}>
                <option value="en">{t('lang.en')}</option>
                <option value="fr">{t('lang.fr')}</option>
              </select>
            )}
          </Field>
          <fieldset>
            <legend>{t('settings.notifications')}</legend>
            {NOTIFICATIONS.map((n) => (
              <label class="check" key={n}>
                <input
                  type="checkbox"
                  name={n}
                  checked={Boolean(s.notifications[n])}
                  onChange={(e) => {
                    // Shown at once; the answer of the save replaces it (or the error says why not).
                    const checked = e.currentTarget.checked;
                    data.set({ ...data.data!, accountSettings: { ...s, notifications: { ...s.notifications, [n]: checked } } });
                    void save.call({ notifications: { [n]: checked } }).then((ok) => ok || data.reload());
                  }}
                />
                {t(`notif.${n}` as Key)}
              </label>
            ))}
          </fieldset>
          <InlineForm onSubmit={() => save.call({ notifSiteCountries: (countries ?? '').split(',').map((c) => c.trim().toUpperCase()).filter(Boolean) })}>
            <Field label={t('settings.countries')} name="notifSiteCountries" error={save.error}>
              {(id, d) => <input id={id} aria-describedby={d} value={countries ?? s.notifSiteCountries.join(', ')} onInput={(e) => setCountries(e.currentTarget.value)} />}
            </Field>
            <SaveButton busy={save.busy} />
          </InlineForm>
          <SaveOutcome saved={saved} action={save} />
        </>
      )}
    </Section>
  );
}

function Password() {
  const t = useT();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction(async () => {
    setDone(false);
    await gql(ChangePasswordDocument, { next, current: current || null });
    setCurrent('');
    setNext('');
    setDone(true);
  });
  return (
    <Section title={t('settings.password')} id="password">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void change.call();
        }}
      >
        <input type="text" name="username" autocomplete="username" hidden />
        <Field label={t('settings.currentPassword')} name="currentPassword" error={change.error}>
          {(id, d) => <input id={id} type="password" autocomplete="current-password" aria-describedby={d} value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />}
        </Field>
        <Field label={t('settings.newPassword')} name="newPassword" error={change.error}>
          {(id, d) => <input id={id} type="password" autocomplete="new-password" minLength={10} required aria-describedby={d} value={next} onInput={(e) => setNext(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={change.busy}>
          {change.busy ? t('common.saving') : t('settings.changePassword')}
        </button>
      </form>
      {done && <p role="status">{t('settings.passwordChanged')}</p>}
      <ErrorBox error={change.error} />
    </Section>
  );
}

function ApiKey() {
  const t = useT();
  const [key, setKey] = useState<string | null>(null);
  const show = useAction(async () => setKey((await gql(AccountApiKeyDocument)).accountApiKey));
  const rotate = useAction(async () => setKey((await gql(RotateAccountApiKeyDocument)).rotateAccountApiKey));
  return (
    <Section title={t('settings.apiKey')} id="api-key">
      {key && (
        <p>
          <code class="secret" data-testid="api-key">
            {key}
          </code>
        </p>
      )}
      <div class="actions">
        <button type="button" disabled={show.busy} onClick={() => show.call()}>
          {t('settings.apiKeyShow')}
        </button>
        <button type="button" class="danger" disabled={rotate.busy} onClick={() => confirm(t('settings.apiKeyConfirm')) && rotate.call()}>
          {t('settings.apiKeyRotate')}
        </button>
      </div>
      <ErrorBox error={show.error ?? rotate.error} />
    </Section>
  );
}

function OAuthApps() {
  const t = useT();
  const lang = useLang();
  const apps = useLoad(() => gql(OAuthApplicationsDocument).then((d) => d.oauthApplications));
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const create = useAction(async () => {
    const { createOAuthApplication } = await gql(CreateOAuthApplicationDocument, { name });
    setSecret(createOAuthApplication.clientSecret);
    setName('');
    apps.reload();
  });
  const remove = useAction(async (id: number) => {
    await gql(DeleteOAuthApplicationDocument, { id: String(id) });
    apps.reload();
  });
  return (
    <Section title={t('settings.oauth')} id="oauth">
      <ErrorBox error={apps.error} onRetry={apps.reload} />
      <ul class="plain">
        {apps.data?.map((a) => (
          <li key={a.id}>
            <strong>{a.name}</strong> <code>{a.clientId}</code> <span class="muted">{formatDate(lang, a.created)}</span>{' '}
            <button type="button" class="link-button" onClick={() => remove.call(a.id)} aria-label={`${t('common.delete')} ${a.name}`}>
              {t('common.delete')}
            </button>
          </li>
        ))}
      </ul>
      <SecretOnce label={t('settings.oauthSecret')} secret={secret} />
      <InlineForm onSubmit={() => create.call()}>
        <Field label={t('settings.oauthName')} name="name" error={create.error}>
          {(id, d) => <input id={id} required maxLength={255} aria-describedby={d} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={create.busy}>
          {t('settings.oauthCreate')}
        </button>
      </InlineForm>
      <ErrorBox error={create.error ?? remove.error} />
    </Section>
  );
}

function Webhooks() {
  const t = useT();
  const lang = useLang();
  const list = useLoad(() => gql(WebhookEndpointsDocument).then((d) => d.webhookEndpoints));
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('match.created');
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const deliveries = useLoad(
    () => (open === null ? Promise.resolve([]) : gql(WebhookDeliveriesDocument, { id: String(open) }).then((d) => d.webhookDeliveries)),
    [open],
  );
  const create = useAction(async () => {
    const { createWebhookEndpoint } = await gql(CreateWebhookEndpointDocument, {
      url,
      events: events.split(',').map((e) => e.trim()).filter(Boolean),
    });
    setSecret(createWebhookEndpoint.secret);
    setUrl('');
    list.reload();
  });
  const act = useAction(async (kind: 'delete' | 'test', id: number) => {
    if (kind === 'delete') await gql(DeleteWebhookEndpointDocument, { id: String(id) });
    else await gql(TestWebhookEndpointDocument, { id: String(id) });
    list.reload();
    if (kind === 'test') (setOpen(id), deliveries.reload());
  });
  return (
    <Section title={t('settings.webhooks')} id="webhooks">
      <ErrorBox error={list.error} onRetry={list.reload} />
      <ul class="plain">
        {list.data?.map((w) => (
          <li key={w.id}>
            <code>{w.url}</code> <span class="muted">{w.events.join(', ')}</span> {!w.enabled && <span class="badge">{w.disabledReason ?? 'disabled'}</span>}
            <span class="actions">
              <button type="button" class="link-button" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                {t('settings.deliveries')}
              </button>
              <button type="button" class="link-button" disabled={act.busy} onClick={() => act.call('test', w.id)}>
                {t('settings.webhookTest')}
              </button>
              <button type="button" class="link-button" disabled={act.busy} onClick={() => act.call('delete', w.id)}>
                {t('common.delete')}
              </button>
            </span>
            {open === w.id && (
              <table class="table compact">
                <caption>{t('settings.deliveries')}</caption>
                <tbody>
                  {(deliveries.data ?? []).map((d) => (
                    <tr key={d.id}>
                      <td>{formatDate(lang, d.created)}</td>
                      <td>{d.eventType}</td>
                      <td>
                        <span class={`badge state-${d.status}`}>{d.status}</span>
                      </td>
                      <td>
                        {d.lastStatusCode ?? ''} {d.lastError ?? ''} ({d.attempts})
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </li>
        ))}
      </ul>
      <SecretOnce label={t('settings.webhookSecret')} secret={secret} />
      <InlineForm onSubmit={() => create.call()}>
        <Field label={t('settings.webhookUrl')} name="url" error={create.error}>
          {(id, d) => <input id={id} type="url" required aria-describedby={d} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}
        </Field>
        <Field label={t('settings.webhookEvents')} name="events" error={create.error}>
          {(id, d) => <input id={id} required aria-describedby={d} value={events} onInput={(e) => setEvents(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={create.busy}>
          {t('settings.webhookCreate')}
        </button>
      </InlineForm>
      <ErrorBox error={create.error ?? act.error} />
    </Section>
  );
}

function Sessions() {
  const t = useT();
  const lang = useLang();
  const list = useLoad(() =>
    gql(BrowserSessionsDocument).then((d) => d.browserSessions),
  );
  const act = useAction(async (id: number | 'others') => {
    if (id === 'others') await gql(RevokeOtherBrowserSessionsDocument);
    else await gql(RevokeBrowserSessionDocument, { id });
    list.reload();
  });
  return (
    <Section title={t('settings.sessions')} id="sessions">
      <ErrorBox error={list.error ?? act.error} onRetry={list.reload} />
      <ul class="plain">
        {list.data?.map((s) => (
          <li key={s.id}>
            <span class="ellipsis">{s.userAgent || '—'}</span> <span class="muted">
              {s.address} · {t('settings.lastSeen')} {formatDate(lang, s.lastSeen)}
            </span>{' '}
            {s.current ? (
              <strong>({t('settings.thisSession')})</strong>
            ) : (
              <button type="button" class="link-button" onClick={() => act.call(s.id)}>
                {t('settings.revoke')}
              </button>
            )}
          </li>
        ))}
      </ul>
      <button type="button" disabled={act.busy} onClick={() => act.call('others')}>
        {t('settings.signOutOthers')}
      </button>
    </Section>
  );
}

/** A licence's day (YYYY-MM-DD, UTC as the API reads a date) for the list and the form. */
const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : '');

function Licensees() {
  const t = useT();
  const list = useLoad(() => gql(LicenseesDocument).then((d) => d.licensees.results));
  const empty = { name: '', domain: '', includeSubdomains: true, mediaPath: '', validFrom: '', validUntil: '', reference: '' };
  const [form, setForm] = useState(empty);
  const text = (key: 'name' | 'domain' | 'mediaPath' | 'validFrom' | 'validUntil' | 'reference') => (e: { currentTarget: HTMLInputElement }) =>
    setForm({ ...form, [key]: e.currentTarget.value });
  const add = useAction(async () => {
    // Optional fields left empty are not sent: the licence then covers every media, at any time.
    const optional = (v: string) => v.trim() || undefined;
    await gql(CreateLicenseeDocument, {
      input: {
        name: form.name, domain: form.domain, includeSubdomains: form.includeSubdomains, mediaPath: optional(form.mediaPath),
        validFrom: optional(form.validFrom), validUntil: optional(form.validUntil), reference: optional(form.reference),
      },
    });
    setForm(empty);
    list.reload();
  });
  const remove = useAction(async (id: string) => {
    await gql(DeleteLicenseeDocument, { id });
    list.reload();
  });
  return (
    <Section title={t('settings.licensees')} id="licensees">
      <ErrorBox error={list.error} onRetry={list.reload} />
      <ul class="plain">
        {list.data?.map((l) => (
          <li key={l.id}>
            <strong>{l.name}</strong> <code>{l.domain}</code> ({l.includeSubdomains ? t('settings.licenseeSubdomains').toLowerCase() : t('settings.licenseeHostOnly')}) ·{' '}
            {l.mediaPath ?? (l.mediaId ? `#${l.mediaId}` : t('settings.licenseeAllMedia'))} ·{' '}
            {l.validFrom || l.validUntil ? `${day(l.validFrom) || '…'} – ${day(l.validUntil) || '…'}` : t('settings.licenseeAnyTime')}
            {l.reference && ` · ${l.reference}`}{' '}
            <button
              type="button"
              class="link-button"
              aria-label={`${t('common.delete')} ${l.name}`}
              onClick={() => confirm(t('settings.licenseeDeleteConfirm', { name: l.name })) && remove.call(l.id)}
            >
              {t('common.delete')}
            </button>
          </li>
        ))}
      </ul>
      <InlineForm onSubmit={() => add.call()} label={t('settings.licenseeAdd')}>
        <Field label={t('settings.licenseeName')} name="name" id="licensee-name" error={add.error}>
          {(id, d) => <input id={id} required maxLength={200} aria-describedby={d} value={form.name} onInput={text('name')} />}
        </Field>
        <Field label={t('settings.licenseeDomain')} name="domain" id="licensee-domain" error={add.error}>
          {(id, d) => <input id={id} required placeholder="example.com" aria-describedby={d} value={form.domain} onInput={text('domain')} />}
        </Field>
        <label class="check">
          <input type="checkbox" checked={form.includeSubdomains} onChange={(e) => setForm({ ...form, includeSubdomains: e.currentTarget.checked })} />
          {t('settings.licenseeSubdomains')}
        </label>
        <Field label={t('settings.licenseeMediaPath')} name="media_path" id="licensee-media-path" error={add.error}>
          {(id, d) => <input id={id} placeholder="/user/folder" aria-describedby={d} value={form.mediaPath} onInput={text('mediaPath')} />}
        </Field>
        <Field label={t('settings.licenseeFrom')} name="valid_from" id="licensee-from" error={add.error}>
          {(id, d) => <input id={id} type="date" aria-describedby={d} value={form.validFrom} onInput={text('validFrom')} />}
        </Field>
        <Field label={t('settings.licenseeUntil')} name="valid_until" id="licensee-until" error={add.error}>
          {(id, d) => <input id={id} type="date" aria-describedby={d} value={form.validUntil} onInput={text('validUntil')} />}
        </Field>
        <Field label={t('settings.licenseeReference')} name="reference" id="licensee-reference" error={add.error}>
          {(id, d) => <input id={id} maxLength={200} aria-describedby={d} value={form.reference} onInput={text('reference')} />}
        </Field>
        <button type="submit" disabled={add.busy}>
          {t('settings.licenseeAdd')}
        </button>
      </InlineForm>
      <ErrorBox error={add.error ?? remove.error} />
    </Section>
  );
}

const HOLDER_FIELDS = [
  ['name', 'settings.holderName', 'text', 200],
  ['email', 'settings.holderEmail', 'email', 254],
  ['address', 'settings.holderAddress', 'text', 500],
  ['phone', 'settings.holderPhone', 'tel', 50],
] as const;
type Holder = Record<(typeof HOLDER_FIELDS)[number][0], string>;

/** The cases plugin's settings: automatic grouping, and the rights holder notices name unless told otherwise. */
function CaseSettings() {
  const t = useT();
  const data = useLoad(() => gql(CaseSettingsDocument).then((d) => d.caseSettings));
  const [holder, setHolder] = useState<Holder | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (input: { autoGroup?: boolean; holder?: Holder }) => {
    setSaved(false);
    // Empty fields are left out; an all-empty holder clears it (null).
    const filled = input.holder && Object.fromEntries(Object.entries(input.holder).map(([k, v]) => [k, v.trim()]).filter(([, v]) => v));
    const { updateCaseSettings } = await gql(UpdateCaseSettingsDocument, {
      autoGroup: input.autoGroup ?? null,
      ...(filled ? { rightsHolder: Object.keys(filled).length ? filled : null } : {}),
    });
    data.set(updateCaseSettings);
    setHolder(null);
    setSaved(true);
  });
  const s = data.data;
  const current: Holder = holder ?? { name: s?.rightsHolder?.name ?? '', email: s?.rightsHolder?.email ?? '', address: s?.rightsHolder?.address ?? '', phone: s?.rightsHolder?.phone ?? '' };
  return (
    <Section title={t('settings.cases')} id="case-settings">
      <ErrorBox error={data.error} onRetry={data.reload} />
      {!s && data.loading && <Loading />}
      {s && (
        <>
          <label class="check">
            <input type="checkbox" checked={s.autoGroup} disabled={save.busy} onChange={(e) => save.call({ autoGroup: e.currentTarget.checked })} />
            {t('settings.autoGroup')}
          </label>
          <p class="muted">{t('settings.holderHow')}</p>
          <InlineForm onSubmit={() => save.call({ holder: current })} label={t('settings.cases')}>
            {HOLDER_FIELDS.map(([key, label, type, max]) => (
              <Field key={key} label={t(label)} name={`rights_holder.${key}`} id={`holder-${key}`} error={save.error}>
                {(id, d) => <input id={id} type={type as 'text'} maxLength={max} aria-describedby={d} value={current[key]} onInput={(e) => setHolder({ ...current, [key]: e.currentTarget.value })} />}
              </Field>
            ))}
            <SaveButton busy={save.busy} />
          </InlineForm>
          <SaveOutcome saved={saved} action={save} />
        </>
      )}
    </Section>
  );
}
