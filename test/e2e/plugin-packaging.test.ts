// Packaging proof (issue 17): the public packages, packed, install outside the checkout; a plugin
// scaffolded there passes its own test as its README says; the examples build and pass the same
// way. Runs in CI's embedded suite only (skipped when DATABASE_URL is set): it packs and installs
// once, which a second run would only repeat. Each step has its own timeout.
import test from 'ava';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { configuredPlugins } from '@filigrane/server';
import { startTestServer } from '@filigrane/testing';
import { copyExample, run } from '../support/packaging.js';

const ROOT = resolve(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'gateway', 'bin', 'filigrane.js');
const NPM_INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund'];
const packaging = process.env.DATABASE_URL ? test.serial.skip : test.serial;

const work = realpathSync(mkdtempSync(join(tmpdir(), 'filigrane-packaging-')));
const plugin = join(work, 'watch-feed');
const examples = join(work, 'examples');
let tarballs: Record<string, string> = {};
// Two installed trees weigh about a gigabyte: gone after the run, pass or fail.
test.after.always(() => rmSync(work, { recursive: true, force: true }));
const timings: Record<string, number> = {};

packaging('pack and scaffold outside the checkout', async (t) => {
  t.timeout(170_000);
  t.false(work.startsWith(ROOT), 'the work folder is outside the checkout');
  timings.pack = await run(process.execPath, [CLI, 'pack', '--out', join(work, 'packages')], ROOT);
  tarballs = JSON.parse(readFileSync(join(work, 'packages', 'filigrane-packages.json'), 'utf8')) as Record<string, string>;
  for (const name of ['@filigrane/plugin-api', '@filigrane/testing', '@filigrane/tsconfig']) t.true(existsSync(tarballs[name]!), name);
  const started = Date.now();
  await run(process.execPath, [CLI, 'plugin', 'new', 'watch-feed', '--dir', plugin, '--packages', join(work, 'packages')], work);
  for (const f of ['src/watch-feed.plugin.ts', 'src/watch-feed.entity.ts', 'src/watch-feed.migration.ts', 'src/watch-feed.routes.ts', 'src/watch-feed.settings.ts', 'test/watch-feed.test.ts', 'README.md']) t.true(existsSync(join(plugin, f)), f);

  // The examples as one workspace of their own, next to it (one install for both).
  mkdirSync(examples);
  for (const name of ['feed-source', 'takedown-tracker']) copyExample(join(ROOT, 'examples', name), join(examples, name), tarballs);
  const internal = Object.fromEntries(Object.entries(tarballs).filter(([n]) => !['@filigrane/plugin-api', '@filigrane/testing', '@filigrane/tsconfig'].includes(n)).map(([n, f]) => [n, `file:${f}`]));
  writeFileSync(join(examples, 'package.json'), JSON.stringify({ private: true, workspaces: ['feed-source', 'takedown-tracker'], devDependencies: { typescript: '5.9.3', ava: '7.0.0', '@types/node': '20.19.43' }, overrides: internal }, null, 2));
  timings.scaffold = (Date.now() - started) / 1000;
});

// Each step stays under ava's 3-minute idle timeout (root package.json) with its own.
packaging('install from the tarballs only, with type declarations, nothing linked into the checkout', async (t) => {
  t.timeout(175_000);
  const started = Date.now();
  // The README's install command, and the examples', at once.
  const installs = await Promise.all([run('npm', NPM_INSTALL, plugin), run('npm', NPM_INSTALL, examples)]);
  timings.install = Math.max(...installs);
  timings.scaffoldToInstalled = timings.scaffold! + (Date.now() - started) / 1000;
  for (const root of [plugin, examples]) {
    const api = join(root, 'node_modules', '@filigrane', 'plugin-api');
    t.false(lstatSync(api).isSymbolicLink(), 'installed from the tarball, not linked');
    t.false(realpathSync(api).startsWith(ROOT));
    t.true(existsSync(join(api, 'dist', 'src', 'index.d.ts')), 'with its type declarations');
  }
  // The test kit stands on the server core, not on the gateway: only the plugins the scaffold's test
  // loads (and their dependencies) are installed, not every first-party plugin.
  const installed = (name: string) => existsSync(join(plugin, 'node_modules', '@filigrane', name));
  t.true(installed('server'));
  for (const name of ['gateway', 'plugin-cases', 'plugin-crawler', 'plugin-webhooks']) t.false(installed(name), `@filigrane/${name} is not installed`);
});

packaging('the scaffolded plugin passes its generated test unchanged (npm test, as its README says)', async (t) => {
  t.timeout(170_000);
  t.true(existsSync(join(plugin, 'node_modules')), 'installed by the previous step');
  t.regex(readFileSync(join(plugin, 'README.md'), 'utf8'), /npm install\nnpm test/);
  timings.scaffoldTest = await run('npm', ['test'], plugin);
  timings.scaffoldToGreen = timings.scaffoldToInstalled! + timings.scaffoldTest;
});

packaging("the scaffold's lint refuses a path into another plugin and the platform's internals", async (t) => {
  t.timeout(60_000);
  const reachIn = join(plugin, 'src', 'reach-in.ts');
  writeFileSync(reachIn, [
    "import { VisualIndexService } from '@filigrane/plugin-search/dist/src/visual-index.service.js';",
    "import { TOKENS } from '@filigrane/core';",
    "import { MatchPipelineService } from '@filigrane/plugin-search';",
    'export const reached = [VisualIndexService, TOKENS, MatchPipelineService];',
  ].join('\n'));
  t.teardown(() => rmSync(reachIn, { force: true }));
  const failed = await t.throwsAsync(run('npm', ['run', 'lint'], plugin));
  t.regex(failed!.message, /error plugin-internals: src\/reach-in\.ts → node_modules\/@filigrane\/plugin-search\/dist\/src\/visual-index\.service/);
  t.regex(failed!.message, /error platform-internals: src\/reach-in\.ts → node_modules\/@filigrane\/core\//);
  t.notRegex(failed!.message, /→ node_modules\/@filigrane\/plugin-search\/dist\/src\/index/, "another plugin's public module is allowed");
  rmSync(reachIn);
  await run('npm', ['run', 'lint'], plugin);
});

packaging('the examples build and pass their tests installed the same way', async (t) => {
  t.timeout(170_000);
  timings.examples = await run('npm', ['run', 'build', '-w', 'feed-source'], examples);
  timings.examples += await run('npm', ['test', '-w', 'takedown-tracker'], examples);
  t.true(existsSync(join(examples, 'feed-source', 'dist', 'src', 'index.js')));
});

packaging('the built plugin, loaded from its folder by this server, runs against the server\'s one copy of the API', async (t) => {
  t.timeout(120_000);
  // Its folder holds its own copies (installed for its tests); the loader hands it the server's.
  const loaded = await configuredPlugins({ FILIGRANE_PLUGINS: plugin }, work);
  const server = await startTestServer({ plugins: loaded });
  t.teardown(() => server.close());
  const alice = await server.createAccount('alice');
  const bad = await alice.call('POST', '/api/v4/watch-feed/feeds/', { json: { url: 'gopher://x' } });
  t.like(bad.json, { status_code: 400, code: 'invalid' }, 'its ApiError is the server\'s: the spec\'s error body, not a 500');
  const site = await server.serveSite({ '/feed.json': { type: 'application/json', body: '{"images":[]}' } });
  t.is((await alice.call('POST', '/api/v4/watch-feed/feeds/', { json: { url: site.url('/feed.json') } })).status, 202);
  await server.drainJobs();
  t.like((await alice.call('GET', '/api/v4/watch-feed/feeds/')).json.results[0], { last_status: 'ok', images: 0 });
  t.log(`seconds: ${JSON.stringify(timings)}`);
});
