import { listPage, notFound, ok, pageSchema, type JsonSchema, type RouteContext, type RouteSpec } from '@filigrane/core';
import { CredentialThrottle } from './credential-throttle.service.js';
import { changeOwnPassword } from './password-change.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PasswordService } from './password.service.js';
import { SessionService, type BrowserSession } from './session.service.js';

const SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'created', 'last_seen', 'expires', 'user_agent', 'address', 'current'],
  properties: {
    id: { type: 'integer' },
    created: { type: 'string', format: 'date-time' },
    last_seen: { type: 'string', format: 'date-time' },
    expires: { type: 'string', format: 'date-time' },
    user_agent: { type: 'string' },
    address: { type: 'string' },
    current: { type: 'boolean' },
  },
};
const CURRENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['username', 'csrf_token', 'expires'],
  properties: { username: { type: 'string' }, csrf_token: { type: 'string', description: 'Send it as X-CSRF-Token with every request that changes something' }, expires: { type: 'string', format: 'date-time' } },
};

const sessionView = (s: BrowserSession, currentId: number | undefined) => ({
  id: s.id,
  created: new Date(s.created).toISOString(),
  last_seen: new Date(s.lastSeen).toISOString(),
  expires: new Date(s.expires).toISOString(),
  user_agent: s.userAgent,
  address: s.address,
  current: s.id === currentId,
});

const headerOf = (ctx: RouteContext, name: string) => {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v.join('; ') : v;
};

/** Secure cookies when the service is reached over https (directly, through TRUST_PROXY, or PUBLIC_URL). */
const secure = (ctx: RouteContext) => ctx.baseUrl.startsWith('https:');

function sessionPrincipal(ctx: RouteContext) {
  const p = ctx.principal!;
  if (p.scheme !== 'session' || p.sessionId === undefined) throw notFound('This request carries no browser session (it was authenticated with an API key or a bearer token).');
  return { accountId: p.accountId, sessionId: p.sessionId, username: p.username };
}

export const sessionRoutes: RouteSpec[] = [
  {
    versions: ['v4'],
    method: 'PUT',
    path: '/account/password/',
    tags: ['sessions'],
    summary: "Change the account's password (scrypt); every other browser session of the account ends",
    description:
      'With the API key or a browser session (not an OAuth bearer token). `current_password` is required with a browser session once the account has a password, and checked whenever it is given (wrong guesses are throttled: 429 with Retry-After). 204 on success. GraphQL: `changePassword`.',
    requestSchema: {
      type: 'object',
      required: ['new_password'],
      properties: {
        new_password: { type: 'string', maxLength: PASSWORD_MAX_LENGTH, description: `At least ${PASSWORD_MIN_LENGTH} characters` },
        current_password: { type: ['string', 'null'], maxLength: PASSWORD_MAX_LENGTH },
      },
    },
    responses: { 204: { description: 'Changed' } },
    async handler(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      await changeOwnPassword(ctx.container.get(PasswordService), ctx.container.get(CredentialThrottle), ctx.principal!, { next: body.new_password, current: body.current_password }, { next: 'new_password', current: 'current_password' });
      return { status: 204, body: undefined, headers: { 'cache-control': 'no-store' } };
    },
  },
  {
    versions: ['v4'],
    method: 'POST',
    path: '/session/',
    auth: 'none',
    tags: ['sessions'],
    summary: 'Sign in with a username and password: opens a browser session (HttpOnly cookie) and returns its CSRF token',
    description:
      'The third way to authenticate, for the console. The session cookie is HttpOnly and SameSite=Strict (Secure over https); requests made with it that change something need the X-CSRF-Token header. Failed sign-ins are throttled (429 with Retry-After).',
    requestSchema: { type: 'object', required: ['username', 'password'], properties: { username: { type: 'string', maxLength: 200 }, password: { type: 'string', maxLength: 4096 } } },
    responses: { 201: { schema: CURRENT_SCHEMA } },
    async handler(ctx) {
      const body = (ctx.body ?? {}) as Record<string, unknown>;
      const sessions = ctx.container.get(SessionService);
      const signedIn = await sessions.signIn({ username: body.username, password: body.password }, { address: ctx.clientAddress ?? 'unknown', userAgent: headerOf(ctx, 'user-agent') });
      return {
        status: 201,
        body: { username: signedIn.principal.username, csrf_token: signedIn.csrfToken, expires: new Date(signedIn.session.expires).toISOString() },
        headers: { 'set-cookie': sessions.cookie(signedIn.token, secure(ctx)), 'cache-control': 'no-store' },
      };
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/session/',
    tags: ['sessions'],
    summary: 'The current browser session and its CSRF token (404 with an API key or a bearer token)',
    responses: { 200: { schema: CURRENT_SCHEMA } },
    async handler(ctx) {
      const { accountId, sessionId, username } = sessionPrincipal(ctx);
      const session = await ctx.container.get(SessionService).current(accountId, sessionId, headerOf(ctx, 'cookie'));
      if (!session) throw notFound('The session has ended; sign in again.');
      return ok({ username, csrf_token: session.csrfToken, expires: new Date(session.expires).toISOString() }, { 'cache-control': 'no-store' });
    },
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/session/',
    tags: ['sessions'],
    summary: 'Sign out: ends this browser session and clears its cookie',
    responses: { 204: { description: 'Signed out' } },
    async handler(ctx) {
      const { accountId, sessionId } = sessionPrincipal(ctx);
      const sessions = ctx.container.get(SessionService);
      await sessions.revoke(accountId, sessionId);
      return { status: 204, headers: { 'set-cookie': sessions.clearCookie(secure(ctx)) } };
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/sessions/',
    tags: ['sessions'],
    summary: "The account's open browser sessions, most recently used first (paginated; no count, as the spec's session list)",
    responses: { 200: { schema: pageSchema(SESSION_SCHEMA, { withCount: false }) } },
    async handler(ctx) {
      const sessions = ctx.container.get(SessionService);
      const accountId = ctx.principal!.accountId;
      return ok(await listPage(ctx, (offset, limit) => sessions.page(accountId, offset, limit), (s) => sessionView(s, ctx.principal!.sessionId), { withCount: false }));
    },
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/sessions/',
    tags: ['sessions'],
    summary: 'Sign out everywhere: ends every browser session of the account (this one too)',
    responses: { 204: { description: 'Every session ended' } },
    async handler(ctx) {
      const sessions = ctx.container.get(SessionService);
      await sessions.revokeAll(ctx.principal!.accountId);
      return { status: 204, headers: ctx.principal!.scheme === 'session' ? { 'set-cookie': sessions.clearCookie(secure(ctx)) } : {} };
    },
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/sessions/:id/',
    tags: ['sessions'],
    summary: 'Ends one browser session of the account',
    responses: { 204: { description: 'Session ended' } },
    async handler(ctx) {
      const id = ctx.params.id ?? '';
      if (!/^\d{1,9}$/.test(id) || !(await ctx.container.get(SessionService).revoke(ctx.principal!.accountId, Number(id)))) throw notFound('No such session.');
      return { status: 204 };
    },
  },
];
