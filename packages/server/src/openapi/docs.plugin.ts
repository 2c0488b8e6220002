import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { definePlugin, file, notFound, ok, queryString, type FiligranePlugin } from '@filigrane/core';
import { buildOpenApi, type OpenApiDocument } from './openapi-document.js';

// The documentation page's assets come from the swagger-ui-dist npm package: no CDN, works offline.
const SWAGGER_DIR: string = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Filigrane API</title>
  <link rel="stylesheet" href="/api/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>
`;
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/schema/', dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * The gateway's own routes for the API description: `/api/schema/` (JSON, or `?format=yaml`) and
 * the documentation page `/api/docs/`. The document covers the plugins `all()` returns, so it is
 * built once, on first request, after every plugin is known.
 */
export function docsPlugin(all: () => FiligranePlugin[], version: string): FiligranePlugin {
  let document: OpenApiDocument | null = null;
  const doc = () => (document ??= buildOpenApi(all(), version));
  const assets = new Map<string, Buffer>();
  return definePlugin({
    id: 'api-docs',
    routes: [
      {
        method: 'GET',
        path: '/api/schema/',
        auth: 'none',
        formats: ['yaml'],
        tags: ['api-docs'],
        summary: 'This OpenAPI 3.1 document (JSON; `format=yaml` for YAML)',
        responses: { 200: { schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
        async handler(ctx) {
          if (queryString(ctx.query, 'format') === 'yaml') return file(Buffer.from(stringify(doc(), { aliasDuplicateObjects: false })), 'application/yaml; charset=utf-8');
          return ok(doc());
        },
      },
      {
        method: 'GET',
        path: '/api/docs/',
        auth: 'none',
        tags: ['api-docs'],
        summary: 'The API documentation page (Swagger UI, served locally)',
        responses: { 200: { description: 'An HTML page' } },
        handler: async () => file(Buffer.from(PAGE), 'text/html; charset=utf-8'),
      },
      {
        method: 'GET',
        path: '/api/docs/:asset',
        auth: 'none',
        tags: ['api-docs'],
        summary: 'A static asset of the documentation page',
        responses: { 200: { description: 'CSS, JavaScript or an image' } },
        async handler(ctx) {
          const name = ctx.params.asset;
          if (name === 'init.js') return file(Buffer.from(INIT), 'text/javascript; charset=utf-8');
          const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined; // not `constructor`, `__proto__`...
          if (!type) throw notFound('No such documentation asset.');
          if (!assets.has(name)) assets.set(name, readFileSync(join(SWAGGER_DIR, name)));
          return { ...file(assets.get(name)!, type), headers: { 'cache-control': 'public, max-age=86400' } };
        },
      },
    ],
  });
}
