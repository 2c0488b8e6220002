import test from 'ava';
import { definePlugin, PluginConfigError, resolvePlugins } from '../src/index.js';

class Thing {}
class OtherThing {}

test('plugins come back in dependency order', (t) => {
  const a = definePlugin({ id: 'a', requires: ['b'] });
  const b = definePlugin({ id: 'b', requires: ['c'] });
  const c = definePlugin({ id: 'c' });
  t.deepEqual(resolvePlugins([a, b, c]).map((p) => p.id), ['c', 'b', 'a']);
});

test('a missing required plugin is a clear boot error', (t) => {
  const err = t.throws(() => resolvePlugins([definePlugin({ id: 'media', requires: ['auth'] }), definePlugin({ id: 'account' })]), { instanceOf: PluginConfigError });
  // What is loaded (a misspelt id shows) and what the operator does next.
  t.is(err?.message, 'plugin "media" requires plugin "auth", which is not loaded (loaded: account, media): install the package providing "auth" and name it in FILIGRANE_PLUGINS, or remove "media"');
});

test('a duplicate entity name is a boot error naming both plugins', (t) => {
  const Dup = class Thing {};
  const err = t.throws(() =>
    resolvePlugins([definePlugin({ id: 'one', entities: [Thing, OtherThing] }), definePlugin({ id: 'two', entities: [Dup] })]),
  );
  t.is(err?.message, 'entity name "Thing" is declared by both plugin "one" and plugin "two"');
});

test('cycles and duplicate ids are refused', (t) => {
  t.throws(() => resolvePlugins([definePlugin({ id: 'x', requires: ['y'] }), definePlugin({ id: 'y', requires: ['x'] })]), {
    message: /cycle: x -> y -> x/,
  });
  t.throws(() => resolvePlugins([definePlugin({ id: 'x' }), definePlugin({ id: 'x' })]), { message: 'plugin "x" is loaded twice' });
});
