import type { FormattedExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

// A real graphql-ws client over loopback for subscription tests (a plugin's `@Subscription` fields, the
// platform's): connections with the credentials given (connection_init payload or upgrade headers),
// results collected as they come. `TestAccount.subscribe` is the short way; these are for the rest.

const clients: Client[] = [];

/** A graphql-ws connection to the server's /graphql; `closed` resolves with the close code and reason. */
export function connect(serverUrl: string, params: Record<string, unknown> | undefined, headers: Record<string, string> = {}): { client: Client; closed: Promise<{ code: number; reason: string }> } {
  let onClosed!: (v: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (onClosed = r));
  const client = createClient({
    url: serverUrl.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: class extends WebSocket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols, { headers });
      }
    },
    connectionParams: params,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: { closed: (e) => onClosed({ code: (e as { code: number }).code, reason: String((e as { reason: unknown }).reason) }) },
  });
  client.on('error', () => undefined);
  clients.push(client);
  return { client, closed };
}

/** Closes every connection made (test.after.always). */
export async function disposeClients(): Promise<void> {
  for (const c of clients.splice(0)) await c.dispose();
}

/** A subscription's results as they come: `next(n)` waits for the n-th one (10 s at most). */
export interface TestSubscription {
  results: FormattedExecutionResult<Record<string, any>, unknown>[];
  unsubscribe(): void;
  readonly error: unknown;
  next(n: number, ms?: number): Promise<FormattedExecutionResult<Record<string, any>, unknown>>;
}

/** Collects a subscription's results; `next(n)` waits for the n-th one (10 s at most). */
export function subscribe(client: Client, query: string, variables?: Record<string, unknown>): TestSubscription {
  const results: FormattedExecutionResult<Record<string, any>, unknown>[] = [];
  let error: unknown = null;
  let waiters: (() => void)[] = [];
  const unsubscribe = client.subscribe<Record<string, any>>({ query, variables }, {
    next: (r) => {
      results.push(r);
      waiters.forEach((w) => w());
    },
    error: (e) => {
      error = e;
      waiters.forEach((w) => w());
    },
    complete: () => undefined,
  });
  return {
    results,
    unsubscribe,
    get error() {
      return error;
    },
    async next(n: number, ms = 10_000) {
      const end = Date.now() + ms;
      while (results.length < n && !error) {
        if (Date.now() > end) throw new Error(`timed out waiting for result ${n} of ${query.slice(0, 60)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
        waiters = [];
      }
      if (error) throw new Error(`subscription error: ${Array.isArray(error) ? JSON.stringify(error) : String((error as { message?: string }).message ?? `${(error as { code?: number }).code} ${(error as { reason?: string }).reason}`)}`);
      return results[n - 1]!;
    },
  };
}

/** Lets the server start reading the outbox for a subscription just sent (there is no "started" message in the protocol). */
export const settle = () => new Promise((r) => setTimeout(r, 700));
