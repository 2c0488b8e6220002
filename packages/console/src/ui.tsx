import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ConsoleError } from './api';
import { useT, type Key, type T } from './i18n';

/** Errors whose code says more than their status: what to do instead, in the interface language. */
const BY_CODE: Partial<Record<string, Key>> = {
  case_has_sent_notices: 'error.caseHasSentNotices',
  mail_not_configured: 'error.mailNotConfigured',
  mail_failed: 'error.mailFailed',
  invalid_transition: 'error.invalidTransition',
  case_not_active: 'error.caseNotActive',
};

/** Codes whose translation carries everything the server's details say (no specifics such as allowed states or a mail server's reply). */
const SAYS_ALL = new Set(['case_has_sent_notices', 'mail_not_configured', 'case_not_active']);

/** What went wrong and what to do, in the interface language, with the server's own words beside. */
export function explain(t: T, err: unknown): { title: string; detail: string } {
  if (!(err instanceof ConsoleError)) return { title: t('error.5xx'), detail: String((err as Error)?.message ?? err) };
  const s = err.status;
  const byCode = BY_CODE[err.code];
  const title = byCode
    ? t(byCode)
    : s === 0 ? t('error.offline') : s === 401 ? t('error.401') : s === 403 ? t('error.403') : s === 404 ? t('error.404') : s === 429 ? t('error.429') : s >= 500 ? t('error.5xx') : t('error.400');
  // Where the translation already says all the server said, its words would only repeat it.
  const repeats = byCode !== undefined && SAYS_ALL.has(err.code);
  return { title, detail: s === 0 || repeats ? '' : err.message };
}

export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const t = useT();
  if (!error) return null;
  const { title, detail } = explain(t, error);
  return (
    <div class="error" role="alert">
      <strong>{title}</strong>
      {detail && <p>{detail}</p>}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}

export function Loading() {
  const t = useT();
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {t('common.loading')}
    </p>
  );
}

/** Data loaded once (and again on `reload`), with its error: every screen starts from this. */
export function useLoad<V>(load: () => Promise<V>, deps: unknown[] = []): { data: V | null; error: unknown; loading: boolean; reload: () => void; set: (v: V) => void } {
  const [state, setState] = useState<{ data: V | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const id = ++latest.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => id === latest.current && setState({ data, error: null, loading: false }),
      (error) => id === latest.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, [...deps, tick]); // eslint-disable-line react-hooks/exhaustive-deps
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const set = useCallback((data: V) => setState({ data, error: null, loading: false }), []);
  return { ...state, reload, set };
}

/** Reloads every few seconds while `live` (work is pending or running on the server). */
export function usePolling(live: boolean, reload: () => void) {
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(reload, 3000);
    return () => clearInterval(timer);
  }, [live, reload]);
}

/** An action: busy while it runs (buttons say so at once), its error kept for the form. */
export function useAction<A extends unknown[], R>(run: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const call = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await run(...args);
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, call, setError };
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export function Progress({ value, label }: { value: number | null; label: string }) {
  return value === null ? (
    <span class="progress-text" role="status">
      <span class="spinner" aria-hidden="true" /> {label}
    </span>
  ) : (
    <span class="progress-text">
      <progress max={1} value={value} aria-label={label} /> {label} {Math.round(value * 100)}%
    </span>
  );
}

export const fieldError = (error: unknown, field: string): string | undefined =>
  error instanceof ConsoleError ? error.fields[field]?.join(' ') : undefined;

export function Field(props: { label: string; name: string; id?: string; error?: unknown; children: (id: string, describedBy?: string) => ComponentChildren }) {
  const id = props.id ?? `f-${props.name}`;
  const message = fieldError(props.error, props.name);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children(id, message ? `${id}-error` : undefined)}
      {message && (
        <span id={`${id}-error`} class="field-error">
          {message}
        </span>
      )}
    </div>
  );
}

export const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);

/** A form whose submit runs `onSubmit` (the page never reloads); its fields sit on one wrapping line. */
export function InlineForm({ onSubmit, children, label }: { onSubmit: () => unknown; children: ComponentChildren; label?: string }) {
  return (
    <form
      class="inline-form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A secret the server shows once (client secret, signing secret). */
export function SecretOnce({ label, secret }: { label: string; secret: string | null }) {
  return secret ? (
    <p role="status">
      {label} <code class="secret">{secret}</code>
    </p>
  ) : null;
}

/** A table with a header row of column names; the rows are the children. */
export function Table({ columns, children }: { columns: ComponentChildren[]; children: ComponentChildren }) {
  return (
    <table class="table">
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th scope="col" key={i}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** The states of a loaded list around its content: error with retry, loading, empty. */
export function ListState<V>({ list, children }: { list: { data: V[] | null; error: unknown; loading: boolean; reload: () => void }; children: (data: V[]) => ComponentChildren }) {
  const t = useT();
  return (
    <>
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading />}
      {list.data && list.data.length === 0 && <p>{t('common.none')}</p>}
      {list.data && list.data.length > 0 && children(list.data)}
    </>
  );
}
