import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { definePlugin, file, notFound, type FiligranePlugin, type RouteResponse } from '@filigrane/core';

/** Where the build step (`npm run build`, packages/console/scripts/bundle.mjs) put the console. */
function appDir(): string | null {
  try {
    return join(dirname(require.resolve('@filigrane/console/package.json')), 'dist', 'app');
  } catch {
    return null;
  }
}

// The console talks to its own origin only; images may come from the sites where copies were found.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https: http:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Filigrane</title></head><body>
<h1>The console is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>, which builds first), then reload.
The API is served as usual: <a href="/api/docs/">/api/docs/</a>.</p></body></html>`;

/**
 * Serves the console at `/` (one page; screens are hash routes) and its hashed assets under
 * `/console/`, read once from the build output. Everything else stays the API's.
 */
export function consolePlugin(): FiligranePlugin {
  const dir = appDir();
  let manifest: { script: string; style: string } | null = null;
  const cache = new Map<string, Buffer>();
  const read = (name: string): Buffer | null => {
    if (!dir) return null;
    if (!cache.has(name)) {
      try {
        cache.set(name, readFileSync(join(dir, name)));
      } catch {
        return null;
      }
    }
    return cache.get(name)!;
  };
  const assets = (): Record<string, string> => {
    manifest ??= JSON.parse(read('manifest.json')?.toString('utf8') ?? 'null') as { script: string; style: string } | null;
    return manifest ? { [manifest.script]: 'text/javascript; charset=utf-8', [manifest.style]: 'text/css; charset=utf-8' } : {};
  };
  const page = (): RouteResponse => {
    const html = read('index.html');
    const res = file(html ?? Buffer.from(NOT_BUILT), 'text/html; charset=utf-8');
    return { ...res, status: html ? 200 : 503, headers: { ...res.headers, ...SECURITY_HEADERS, 'cache-control': 'no-cache' } };
  };
  return definePlugin({
    id: 'console',
    routes: [
      {
        method: 'GET',
        path: '/',
        auth: 'none',
        tags: ['console'],
        summary: 'The console: the web application for people (sign in with a username and password)',
        responses: { 200: { description: 'An HTML page' } },
        handler: async () => page(),
      },
      {
        method: 'GET',
        path: '/console/:asset',
        auth: 'none',
        tags: ['console'],
        summary: "A static asset of the console (script or style, named by its content's hash)",
        responses: { 200: { description: 'JavaScript or CSS' } },
        async handler(ctx) {
          const name = ctx.params.asset ?? '';
          const types = assets();
          const type = Object.hasOwn(types, name) ? types[name] : undefined;
          const body = type ? read(name) : null;
          if (!type || !body) throw notFound('No such console asset.');
          return { ...file(body, type), headers: { 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' } };
        },
      },
    ],
  });
}
