import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Headers a page on an allowed origin may send, and read back. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id', 'Range', 'If-None-Match', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name'];
const EXPOSED_HEADERS = [
  'X-Request-Id', 'Retry-After', 'Link', 'Location', 'Content-Disposition', 'Content-Range', 'Accept-Ranges',
  'X-RateLimit-Secondly', 'X-RateLimit-Secondly-Remaining', 'X-RateLimit-Daily', 'X-RateLimit-Daily-Remaining',
];

/** `https://console.example.com` as browsers send it in Origin (no path, default ports left out). */
export function normalizeOrigin(raw: string): string {
  const url = new URL(raw);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`CORS_ORIGINS: "${raw}" is not an origin (scheme://host[:port], nothing after)`);
  }
  return url.origin;
}

/**
 * CORS for the origins of CORS_ORIGINS on every route (REST, GraphQL, files): preflights answered
 * before credentials are looked at, credentials allowed for those origins only; a request from any
 * other origin gets no CORS header at all (the browser then keeps the answer from the page).
 * Registered before the gateway's own hooks so that errors (401, 429) carry the headers too.
 */
export async function registerCors(app: FastifyInstance, origins: string[]): Promise<(origin: string | undefined) => boolean> {
  const allowed = new Set(origins.map(normalizeOrigin));
  const isAllowed = (origin: string | undefined) => origin !== undefined && allowed.has(origin);
  if (allowed.size === 0) return isAllowed;
  await app.register(fastifyCors, {
    hook: 'onRequest',
    origin: (origin, cb) => cb(null, isAllowed(origin)),
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: false,
  });
  return isAllowed;
}
