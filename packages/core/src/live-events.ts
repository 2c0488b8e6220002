import type { IncomingHttpHeaders } from 'node:http';
import type { DomainEvent } from './events.js';
import { createExtensionPoint } from './extension-point.js';
import type { Principal } from './request-context.js';

/** An event as subscriptions see it: from the outbox, after its transaction committed. */
export interface LiveEvent extends DomainEvent {
  id: string;
  occurredAt: Date;
}

/**
 * Committed events of the outbox as they arrive, for GraphQL subscriptions (bound by the gateway
 * under LIVE_EVENTS). A stream sees one account's events only; it ends when `signal` aborts or the
 * consumer returns.
 */
export interface LiveEvents {
  stream(accountId: number, accept: (event: LiveEvent) => boolean, signal?: AbortSignal): AsyncIterableIterator<LiveEvent>;
}

export const LIVE_EVENTS = Symbol.for('filigrane.LiveEvents') as symbol & { __type?: LiveEvents };

/** What a credential resolver sees of a request (an HTTP request or a WebSocket's upgrade). */
export interface CredentialRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  address: string;
}

/**
 * Ways a request proves who it is besides the Authorization header (API key, OAuth token): the
 * console's session cookie, for example. A resolver answers null when its credential is absent,
 * throws a 401 ApiError when it is present and wrong. The gateway asks them in plugin order, for
 * REST, GraphQL over HTTP and GraphQL subscriptions alike; a WebSocket authenticated this way must
 * come from an allowed origin (the gateway checks Origin, since browsers send cookies cross-site).
 */
export type CredentialResolver = (request: CredentialRequest) => Promise<Principal | null>;

export const REQUEST_CREDENTIALS = createExtensionPoint<CredentialResolver>('core.request-credentials');
