import test from 'ava';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPlugins, settingsDocument } from '@filigrane/gateway';
import { bootTestServer, configuredPlugins } from '@filigrane/server';
import { CORE_API_VERSION, PLUGIN_API_VERSION } from '@filigrane/core';

// Modules an operator might name in FILIGRANE_PLUGINS, written as plain CommonJS packages.
const dir = mkdtempSync(join(tmpdir(), 'filigrane-plugins-'));
const write = (name: string, source: string) => writeFileSync(join(dir, name), source);
write('no-version.cjs', `module.exports = { plugin: { id: 'unversioned', routes: [] } };`);
write('old.cjs', `module.exports = { plugin: { id: 'old-timer', coreApi: '0.9', routes: [] } };`);
write('newer.cjs', `module.exports = { plugin: { id: 'from-future', coreApi: '${CORE_API_VERSION.split('.')[0]}.99', routes: [] } };`);
write('needy.cjs', `module.exports = { default: { id: 'needy', coreApi: '${CORE_API_VERSION}', requires: ['crystal-ball'], routes: [] } };`);
write('range.cjs', `module.exports = { plugin: { id: 'ranged', pluginApi: '^${PLUGIN_API_VERSION}', routes: [] } };`);
write('next-major.cjs', `module.exports = { plugin: { id: 'next-major', pluginApi: '>=2.0.0', routes: [] } };`);
write('bad-range.cjs', `module.exports = { plugin: { id: 'bad-range', pluginApi: 'lots', routes: [] } };`);
write('nothing.cjs', `module.exports = { answer: 42 };`);

test('a plugin whose plugin API range does not hold this version, or that declares none, is refused naming it', async (t) => {
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './no-version.cjs' }, dir), { message: /plugin "unversioned" \(from "\.\/no-version\.cjs"\) does not declare the plugin API range it works with/ });
  // The deprecated coreApi 'X.Y' reads as '^X.Y.0'.
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './old.cjs' }, dir), { message: /plugin "old-timer" .* needs plugin API \^0\.9\.0, but this Filigrane provides plugin API 1\./ });
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './newer.cjs' }, dir), { message: /plugin "from-future" .* needs plugin API \^1\.99\.0/ });
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './next-major.cjs' }, dir), { message: `plugin "next-major" (from "./next-major.cjs") needs plugin API >=2.0.0, but this Filigrane provides plugin API ${PLUGIN_API_VERSION}: install a version of the plugin built for it` });
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './bad-range.cjs' }, dir), { message: /plugin "bad-range" .* declares pluginApi "lots", which is not a semver range/ });
  t.is((await configuredPlugins({ FILIGRANE_PLUGINS: './range.cjs' }, dir))[0]!.id, 'ranged');
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './nothing.cjs' }, dir), { message: /module "\.\/nothing\.cjs" exports no plugin/ });
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './missing-module' }, dir), { message: /cannot find plugin module "\.\/missing-module"/ });
  // A plugin folder never built: its main file is missing.
  mkdirSync(join(dir, 'unbuilt'), { recursive: true });
  write('unbuilt/package.json', JSON.stringify({ name: 'filigrane-plugin-unbuilt', main: 'dist/src/index.js' }));
  await t.throwsAsync(configuredPlugins({ FILIGRANE_PLUGINS: './unbuilt' }, dir), { message: /cannot find plugin module "\.\/unbuilt" .*dist\/src\/index\.js.*: build the plugin first \(`npm run build` in its folder\)$/ });
  t.deepEqual(await configuredPlugins({}, dir), []);
});

test('a configured plugin with a missing dependency stops the boot naming both', async (t) => {
  const needy = await configuredPlugins({ FILIGRANE_PLUGINS: './needy.cjs' }, dir);
  t.is(needy[0].id, 'needy');
  await t.throwsAsync(bootTestServer({ plugins: needy, env: process.env, workers: false }), { message: /^plugin "needy" requires plugin "crystal-ball", which is not loaded \(loaded: [a-z, -]*\bneedy\b[a-z, -]*\): install the package providing "crystal-ball" and name it in FILIGRANE_PLUGINS, or remove "needy"$/ });
});

test('a plugin setting with a bad value stops the boot naming the plugin and the variable', async (t) => {
  // The gateway's boot check, as `filigrane start` runs it over the built-in and configured plugins.
  const boot = async (env: Record<string, string>) => bootTestServer({ plugins: [...defaultPlugins(), ...(await configuredPlugins(env))], env: { ...process.env, ...env }, workers: false });
  await t.throwsAsync(boot({ FILIGRANE_PLUGINS: './examples/feed-source', PARTNER_FEED_MAX_IMAGE_BYTES: 'lots' }), {
    message: 'plugin "partner-feed": setting PARTNER_FEED_MAX_IMAGE_BYTES must be an integer, got "lots"',
  });
  await t.throwsAsync(boot({ WATERMARKING_TTL_HOURS: '-1' }), { message: /plugin "watermarking": setting WATERMARKING_TTL_HOURS must be >= / });
  await t.throwsAsync(boot({ MAX_IMAGE_PIXELS: '1e99x' }), { message: /plugin "core": setting MAX_IMAGE_PIXELS must be an integer/ });
});

test('docs/configuration.md is the generated table of every declared setting', (t) => {
  const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'configuration.md'), 'utf8');
  t.is(doc, settingsDocument(), 'regenerate it with `npx filigrane settings > docs/configuration.md`');
  for (const name of ['MAX_IMAGE_PIXELS', 'FETCH_ALLOW_HOSTS', 'WATERMARKING_TTL_HOURS', 'PORT', 'FILIGRANE_PLUGINS']) t.regex(doc, new RegExp(`\`${name}\``));
});

test("a plugin importing a first-party plugin's public module gets the server's copy (the classes it loaded), else its own", async (t) => {
  // A plugin folder with its own node_modules, as `npm install` leaves it for its tests.
  const root = mkdtempSync(join(tmpdir(), 'filigrane-plugin-copies-'));
  const pkg = (folder: string, name: string, main: string) => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, version: '0.1.0', main: 'index.js' }));
    writeFileSync(join(folder, 'index.js'), main);
  };
  pkg(join(root, 'node_modules', '@filigrane', 'plugin-matches'), '@filigrane/plugin-matches', `exports.Match = class Match {}; exports.copy = 'the plugin folder';`);
  pkg(join(root, 'node_modules', '@filigrane', 'plugin-nowhere'), '@filigrane/plugin-nowhere', `exports.copy = 'the plugin folder';`);
  pkg(root, 'filigrane-plugin-match-fields', `
    const matches = require('@filigrane/plugin-matches');
    const nowhere = require('@filigrane/plugin-nowhere');
    module.exports = { default: { id: 'match-fields', pluginApi: '^${PLUGIN_API_VERSION}', routes: [] }, matches, nowhere };`);
  t.is((await configuredPlugins({ FILIGRANE_PLUGINS: root }, dir))[0]!.id, 'match-fields');
  const mod = require(join(root, 'index.js')) as { matches: { Match: unknown; copy?: string }; nowhere: { copy: string } }; // as loaded
  // `@Resolver(() => Match)` in the plugin must name the class the server's schema holds.
  t.is(mod.matches.Match, (await import('@filigrane/plugin-matches')).Match, "the server's Match, not the folder's");
  t.is(mod.matches.copy, undefined);
  t.is(mod.nowhere.copy, 'the plugin folder', 'a package the server lacks stays the plugin\'s own');
});
