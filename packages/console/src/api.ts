// The console's only ways to the server: GraphQL for data, and the REST file endpoints for what
// is bytes (uploads with progress, downloads). Every request carries the session cookie (same
// origin) and, when it changes something, the session's CSRF token.

let csrfToken: string | null = null;
export const setCsrf = (token: string | null) => (csrfToken = token);

/** An error worded for people: what happened and what to do (from the error body's details). */
export class ConsoleError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

/** Called when the server says the session is gone (401): the app shows the sign-in form. */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (f: () => void) => (onSignedOut = f);

function detailsText(details: unknown): { message: string; fields: Record<string, string[]> } {
  if (typeof details === 'string') return { message: details, fields: {} };
  if (details && typeof details === 'object') {
    const fields = details as Record<string, string[]>;
    return { message: Object.entries(fields).map(([k, v]) => `${k}: ${[v].flat().join(' ')}`).join(' '), fields };
  }
  return { message: '', fields: {} };
}

async function errorOf(res: Response): Promise<ConsoleError> {
  let body: { status_code?: number; code?: string; details?: unknown } = {};
  try {
    body = await res.json();
  } catch {
    /* not JSON: a proxy's page */
  }
  const { message, fields } = detailsText(body.details);
  const retry = res.headers.get('retry-after');
  const text = message || `${res.status} ${res.statusText}`;
  return new ConsoleError(retry ? `${text} (${retry} s)` : text, res.status, body.code ?? 'http_error', fields);
}

import type { TypedDocument } from './graphql/generated';

const headers = (extra: Record<string, string> = {}) => ({ ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}), ...extra });

/**
 * The data of an answer without errors. The gateway makes every root field nullable so that one
 * failing field keeps the others' data; gql throws on any error, so the root fields it resolves
 * with are set (accountApiKey, null when the account has no key, is the one nullable by nature).
 */
export type Answer<T> = { [K in keyof T]: NonNullable<T[K]> };

/** Runs one of the generated operations (graphql/operations/*.graphql): its variables and answer are typed from the schema. */
export async function gql<T, V>(query: TypedDocument<T, V>, variables?: V): Promise<Answer<T>> {
  let res: Response;
  try {
    res = await fetch('/graphql', { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify({ query, variables }) });
  } catch {
    throw new ConsoleError('offline', 0, 'network');
  }
  if (res.status === 401) onSignedOut();
  const body = (await res.json().catch(() => null)) as { data?: Answer<T>; errors?: { message: string; extensions?: { code?: string; apiCode?: string; status_code?: number; details?: unknown } }[] } | null;
  if (!body) throw await errorOf(res);
  if (body.errors?.length) {
    const e = body.errors[0]!;
    if (e.extensions?.status_code === 401) onSignedOut();
    const { message, fields } = detailsText(e.extensions?.details);
    // apiCode is the REST error body's code (mail_not_configured, …); code is GraphQL's class of error.
    throw new ConsoleError(message || e.message, e.extensions?.status_code ?? res.status, e.extensions?.apiCode ?? e.extensions?.code ?? 'graphql_error', fields);
  }
  return body.data as Answer<T>;
}

export async function rest<T>(method: string, path: string, json?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { method, headers: headers(json === undefined ? {} : { 'content-type': 'application/json' }), body: json === undefined ? undefined : JSON.stringify(json) });
  } catch {
    throw new ConsoleError('offline', 0, 'network');
  }
  if (!res.ok) {
    const err = await errorOf(res);
    if (res.status === 401 && path !== '/api/v4/session/') onSignedOut();
    throw err;
  }
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** An upload with progress (fetch has none): resolves with the JSON answer. */
export function upload<T>(method: string, path: string, body: Blob | FormData, contentType: string | null, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    if (contentType) xhr.setRequestHeader('content-type', contentType);
    if (csrfToken) xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ConsoleError('offline', 0, 'network'));
    xhr.onload = () => {
      const res = new Response(xhr.responseText, { status: xhr.status, headers: { 'content-type': 'application/json', 'retry-after': xhr.getResponseHeader('retry-after') ?? '' } });
      if (xhr.status >= 200 && xhr.status < 300) resolve(JSON.parse(xhr.responseText || 'null') as T);
      else void errorOf(res).then(reject);
    };
    xhr.send(body);
  });
}

export interface SessionInfo {
  username: string;
  csrf_token: string;
}

export async function currentSession(): Promise<SessionInfo | null> {
  const res = await fetch('/api/v4/session/', { headers: { accept: 'application/json' } }).catch(() => null);
  if (!res || !res.ok) return null;
  return (await res.json()) as SessionInfo;
}
