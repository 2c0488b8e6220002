// A self-contained GraphQL explorer page: Apollo's default landing page loads from a CDN, which
// does not exist offline, so we serve this small page instead (no external resources).
export const EXPLORER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Filigrane GraphQL</title>
<style>
 body{font-family:system-ui,sans-serif;margin:0;display:grid;grid-template-rows:auto 1fr;height:100vh}
 header{padding:.5rem 1rem;background:#223;color:#fff;display:flex;gap:1rem;align-items:center}
 header input{flex:1;font-family:monospace}
 main{display:grid;grid-template-columns:1fr 1fr;gap:.5rem;padding:.5rem}
 textarea,pre{font-family:monospace;font-size:13px;margin:0;border:1px solid #ccc;padding:.5rem;overflow:auto}
 .col{display:grid;grid-template-rows:2fr 1fr auto;gap:.5rem}
</style></head>
<body>
<header><strong>Filigrane GraphQL</strong>
 <input id="auth" placeholder="Authorization header, e.g. Token YOUR_API_KEY" autocomplete="off">
 <button id="run">Run (Ctrl+Enter)</button></header>
<main>
 <div class="col">
  <textarea id="query" spellcheck="false">query Me {\n  account {\n    username\n    email\n    home\n    imageCount\n  }\n}</textarea>
  <textarea id="vars" spellcheck="false" placeholder="Variables (JSON)">{}</textarea>
  <small>Schema: run <code>{ __schema { types { name } } }</code>, or download it with <code>npx filigrane schema</code>.</small>
 </div>
 <pre id="out"></pre>
</main>
<script>
const $ = (id) => document.getElementById(id);
$('auth').value = sessionStorage.getItem('auth') || '';
async function run() {
  sessionStorage.setItem('auth', $('auth').value);
  let variables = {};
  try { variables = JSON.parse($('vars').value || '{}'); } catch (e) { $('out').textContent = 'Variables: ' + e.message; return; }
  const res = await fetch(location.pathname, { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: $('auth').value },
    body: JSON.stringify({ query: $('query').value, variables }) });
  $('out').textContent = res.status + '\\n' + JSON.stringify(await res.json(), null, 2);
}
$('run').onclick = run;
document.addEventListener('keydown', (e) => { if (e.ctrlKey && e.key === 'Enter') run(); });
</script></body></html>`;
