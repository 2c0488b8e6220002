// One HTTP request to a running Filigrane, as a client would make it.
export interface CallOptions {
  /** API key, sent as `Authorization: Token <key>`. */
  key?: string;
  /** Access token, sent as `Authorization: Bearer <token>`. */
  bearer?: string;
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One HTTP request to a running Filigrane, as a client would make it. */
export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Token ${options.key}`;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(new URL(path, baseUrl), { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
