import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaffoldPlugin } from '../src/scaffold/plugin-scaffold.js';
import { pluginNames } from '../src/scaffold/plugin-names.js';
import { PLUGIN_API_VERSION } from '@filigrane/core';

test('a scaffolded plugin names everything after the plugin and installs from the registry by default', (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'filigrane-scaffold-')), 'photo-feed');
  const files = scaffoldPlugin({ name: 'photo-feed', dir });
  t.deepEqual(files, ['.dependency-cruiser.cjs', '.gitignore', 'README.md', 'package.json', 'src/index.ts', 'src/photo-feed.entity.ts', 'src/photo-feed.migration.ts', 'src/photo-feed.plugin.ts', 'src/photo-feed.resolver.ts', 'src/photo-feed.routes.ts', 'src/photo-feed.service.ts', 'src/photo-feed.settings.ts', 'test/photo-feed.test.ts', 'tsconfig.json']);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  t.is(pkg.name, 'filigrane-plugin-photo-feed');
  t.deepEqual(pkg.peerDependencies, { '@filigrane/plugin-api': `^${PLUGIN_API_VERSION}` }, 'the API this Filigrane provides');
  t.is(pkg.devDependencies['@filigrane/testing'], '0.1.0');
  // The kit depends on no plugin: the ones its test server loads are the plugin's own devDependencies.
  t.is(pkg.devDependencies['@filigrane/gateway'], undefined);
  for (const name of ['@filigrane/plugin-auth', '@filigrane/plugin-account', '@filigrane/plugin-search']) t.is(pkg.devDependencies[name], '0.1.0', name);
  t.is(pkg.overrides, undefined);
  // The import-boundary lint runs before the tests.
  t.is(pkg.devDependencies['dependency-cruiser'], '17.4.3');
  t.regex(pkg.scripts.test, /npm run lint && ava$/);
  t.regex(readFileSync(join(dir, '.dependency-cruiser.cjs'), 'utf8'), /name: 'plugin-internals'/);
  const plugin = readFileSync(join(dir, 'src/photo-feed.plugin.ts'), 'utf8');
  t.regex(plugin, /id: 'photo-feed'/);
  t.true(plugin.includes(`pluginApi: '^${PLUGIN_API_VERSION}'`));
  t.regex(plugin, /export const photoFeedPlugin/);
  t.regex(plugin, /resolvers: \[PhotoFeedResolver\]/);
  t.regex(readFileSync(join(dir, 'src/photo-feed.resolver.ts'), 'utf8'), /@ObjectType\('PhotoFeedFeed'\)[\s\S]*photoFeedFeeds\(/);
  t.regex(readFileSync(join(dir, 'src/photo-feed.migration.ts'), 'utf8'), /CREATE TABLE photo_feed_feeds/);
  t.regex(readFileSync(join(dir, 'src/photo-feed.settings.ts'), 'utf8'), /PHOTO_FEED_MAX_IMAGES_PER_FEED/);
  t.notRegex(files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n'), /__[A-Za-z]+__/, 'no placeholder left');
});

test('hostile names and non-empty folders are refused', (t) => {
  for (const name of ['../escape', 'Photo', 'a--b', '-x', 'x'.repeat(41), 'x/y', '']) t.throws(() => pluginNames(name), { message: /lower-case words joined by dashes/ });
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-scaffold-'));
  writeFileSync(join(dir, 'keep.txt'), 'mine');
  t.throws(() => scaffoldPlugin({ name: 'feed', dir }), { message: /is not empty/ });
  t.throws(() => scaffoldPlugin({ name: 'feed', dir: join(dir, 'new'), packages: dir }), { message: /holds no filigrane-packages\.json/ });
});
