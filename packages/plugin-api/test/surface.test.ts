import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as api from '../src/index.js';
import * as core from '@filigrane/core';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };

test('the package version is the plugin API version the server checks ranges against', (t) => {
  t.is(pkg.version, api.PLUGIN_API_VERSION);
  t.regex(readFileSync(join(__dirname, '..', '..', 'CHANGELOG.md'), 'utf8'), new RegExp(`## ${pkg.version.replace(/\./g, '\\.')}`));
});

test('platform internals stay out of the public surface', (t) => {
  for (const internal of ['SecretBox', 'WorkPool', 'ExtensionRegistry', 'resolvePlugins', 'parseSettings', 'EventBus', 'ManualClock', 'keysetBatches', 'assertBlobKey']) {
    t.false(internal in api, `${internal} is internal`);
  }
  for (const token of ['SecretBox', 'Authenticator', 'RateLimiter', 'WorkPool', 'Config']) t.false(token in api.TOKENS, `TOKENS.${token} is internal`);
  t.is(api.TOKENS.DataSource, core.TOKENS.DataSource);
  t.is(api.TOKENS.DataSource, Symbol.for('filigrane.DataSource'), 'a second copy of the package names the same binding');
});

test('an ApiError from another copy of the package still counts as one', (t) => {
  // What a second copy's error looks like: its own class, the shared Symbol.for brand.
  class OtherCopyError extends Error {
    constructor() {
      super('nope');
      Object.defineProperty(this, Symbol.for('filigrane.ApiError'), { value: true });
    }
  }
  const foreign = new OtherCopyError();
  t.true(foreign instanceof api.ApiError);
  t.true(api.ApiError.is(api.notFound()));
  t.false(new Error('plain') instanceof api.ApiError);
  t.deepEqual(api.accepted({ id: 1 }), { status: 202, body: { id: 1 }, headers: undefined });
});

test('every public token carries its service type (a plugin injects it typed)', (t) => {
  type Service<T> = T extends { __type?: infer S } ? S : never;
  // Compile-time: `unknown` (an untyped token) would not extend the interface and fail the build.
  const sessions: Service<typeof api.TOKENS.Sessions> extends api.SessionAuthenticator ? true : false = true;
  const pipeline: Service<typeof api.TOKENS.MatchPipeline> extends api.MatchPipeline ? true : false = true;
  t.true(sessions && pipeline);
});
