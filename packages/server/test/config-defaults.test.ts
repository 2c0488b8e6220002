import test from 'ava';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config.js';

// packages/server/dist/test → the checkout's root.
const root = resolve(__dirname, '..', '..', '..', '..');

test('defaults point into the checkout: the tool folder and the version the download endpoint shows', (t) => {
  const config = loadConfig({});
  t.is(config.toolDir, join(root, 'packages', 'tool', 'release'));
  t.is(config.toolVersion, (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version);
});
