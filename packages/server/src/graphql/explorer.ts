import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// GraphiQL (schema docs, completion, history, a headers editor for the credentials) from the
// graphiql npm package's UMD build with React's: served from node_modules, no CDN, works offline.
const pkgDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

const ASSETS: Record<string, { read: () => Buffer; type: string }> = {
  'react.production.min.js': { read: () => readFileSync(join(pkgDir('react'), 'umd', 'react.production.min.js')), type: 'text/javascript; charset=utf-8' },
  'react-dom.production.min.js': { read: () => readFileSync(join(pkgDir('react-dom'), 'umd', 'react-dom.production.min.js')), type: 'text/javascript; charset=utf-8' },
  'graphiql.min.js': { read: () => readFileSync(join(pkgDir('graphiql'), 'graphiql.min.js')), type: 'text/javascript; charset=utf-8' },
  'graphiql.min.css': { read: () => readFileSync(join(pkgDir('graphiql'), 'graphiql.min.css')), type: 'text/css; charset=utf-8' },
  'graphql-ws.min.js': { read: () => readFileSync(join(pkgDir('graphql-ws'), 'umd', 'graphql-ws.min.js')), type: 'text/javascript; charset=utf-8' },
  'explorer.js': { read: () => Buffer.from(EXPLORER_JS), type: 'text/javascript; charset=utf-8' },
};

export const EXPLORER_ASSETS_PATH = '/graphql-explorer';

/** The page's own script (a file, so that a Content-Security-Policy without inline scripts holds). */
const EXPLORER_JS = `(function () {
  var headersKey = 'filigrane:graphiql:headers';
  var saved = localStorage.getItem(headersKey);
  var base = location.origin + location.pathname.replace(/\\/+$/, '');
  var wsUrl = base.replace(/^http/, 'ws');
  var headers = {};
  try { headers = JSON.parse(saved || '{}'); } catch (e) { headers = {}; }
  var wsClient = null;
  function subscriptionClient(auth) {
    if (wsClient) wsClient.dispose();
    wsClient = graphqlWs.createClient({ url: wsUrl, lazy: true, connectionParams: function () { return { authorization: auth }; } });
    return wsClient;
  }
  var placeholder = 'YOUR_API_KEY';
  function authOf(text) {
    try { var h = JSON.parse(text || '{}'); return String((h && (h.Authorization || h.authorization)) || ''); } catch (e) { return null; }
  }
  // A new fetcher makes GraphiQL read the schema again, with the headers as they are now.
  function makeFetcher() {
    return function fetcher(params, opts) {
      var h = Object.assign({ 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' }, (opts && opts.headers) || {});
      localStorage.setItem(headersKey, JSON.stringify((opts && opts.headers) || {}));
      var auth = h.Authorization || h.authorization || '';
      if (auth.indexOf(placeholder) >= 0) {
        return Promise.resolve({ errors: [{ message: 'Put your API key in the Headers tab below (Authorization: Token <your key>): the schema docs and completion load as soon as it is there.', extensions: { code: 'UNAUTHENTICATED' } }] });
      }
      if (/^\\s*subscription\\b/.test(params.query || '')) {
        var client = subscriptionClient(auth);
        return { subscribe: function (sink) { return { unsubscribe: client.subscribe(params, sink) }; } };
      }
      return fetch(base, { method: 'POST', headers: h, body: JSON.stringify(params), credentials: 'same-origin' }).then(function (r) { return r.json(); });
    };
  }
  var initialHeaders = saved || JSON.stringify({ Authorization: 'Token ' + placeholder }, null, 2);
  var shownAuth = authOf(initialHeaders);
  var fetcher = makeFetcher();
  var timer = null;
  // Credentials typed or pasted into the headers editor: once they settle, the schema is read with them.
  function onEditHeaders(text) {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var auth = authOf(text);
      if (auth === null || auth === shownAuth) return;
      shownAuth = auth;
      fetcher = makeFetcher();
      render();
    }, 500);
  }
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  function render() {
    root.render(React.createElement(GraphiQL, {
      fetcher: fetcher,
      onEditHeaders: onEditHeaders,
      defaultEditorToolsVisibility: 'headers',
      headers: initialHeaders,
      shouldPersistHeaders: true,
      defaultQuery: '# Filigrane GraphQL. Put your API key in the Headers tab below ({"Authorization": "Token ..."}),\\n# then Ctrl+Enter. The book icon opens the schema docs; Ctrl+Space completes.\\nquery Me {\\n  account {\\n    username\\n    email\\n  }\\n}\\n'
    }));
  }
  render();
})();
`;

export const EXPLORER_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Filigrane GraphQL</title>
  <link rel="stylesheet" href="${EXPLORER_ASSETS_PATH}/graphiql.min.css">
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading the GraphQL explorer…</div>
  <script src="${EXPLORER_ASSETS_PATH}/react.production.min.js"></script>
  <script src="${EXPLORER_ASSETS_PATH}/react-dom.production.min.js"></script>
  <script src="${EXPLORER_ASSETS_PATH}/graphql-ws.min.js"></script>
  <script src="${EXPLORER_ASSETS_PATH}/graphiql.min.js"></script>
  <script src="${EXPLORER_ASSETS_PATH}/explorer.js"></script>
</body>
</html>
`;

const cache = new Map<string, Buffer>();

/** An explorer asset (read once, on first request), public like the page: they hold no data. null: no such file. */
export function explorerAsset(name: string): { body: Buffer; type: string } | null {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : null; // not `constructor`, `__proto__`...
  if (!asset) return null;
  let body = cache.get(name);
  if (!body) {
    body = asset.read();
    cache.set(name, body);
  }
  return { body, type: asset.type };
}
