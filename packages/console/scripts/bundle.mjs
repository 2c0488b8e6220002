// Bundles the console (src/main.tsx) into dist/app: hashed script and style, index.html naming
// them, and manifest.json with their gzip sizes. Run by the root `npm run build`, offline.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'app');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const started = Date.now();
const result = await build({
  entryPoints: { app: join(root, 'src', 'main.tsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: out,
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const files = Object.keys(result.metafile.outputs).map((f) => basename(f));
const script = files.find((f) => f.endsWith('.js'));
const style = files.find((f) => f.endsWith('.css'));
const html = readFileSync(join(root, 'src', 'index.html'), 'utf8').replace('%SCRIPT%', `/console/${script}`).replace('%STYLE%', `/console/${style}`);
writeFileSync(join(out, 'index.html'), html);
const sizes = Object.fromEntries(
  files.concat('index.html').map((f) => {
    const bytes = readFileSync(join(out, f));
    return [f, { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }];
  }),
);
writeFileSync(join(out, 'manifest.json'), JSON.stringify({ script, style, sizes }, null, 2));
// The console's operations as trusted documents (GRAPHQL_TRUSTED_DOCUMENTS), beside the app, not served.
copyFileSync(join(root, 'src', 'graphql', 'persisted-documents.json'), join(root, 'dist', 'persisted-documents.json'));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
if (process.env.CONSOLE_BUNDLE_REPORT) console.log(`console: ${script} ${kb(sizes[script].gzip)} gzip, ${style} ${kb(sizes[style].gzip)} gzip (${Date.now() - started} ms)`);
