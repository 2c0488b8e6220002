import test from 'ava';
import { createExtensionPoint, ExtensionRegistry } from '../src/index.js';

test('contributions are read back in order, per point', (t) => {
  const sources = createExtensionPoint<{ name: string }>('test.sources');
  const other = createExtensionPoint<number>('test.other');
  const registry = new ExtensionRegistry();
  registry.declare(sources, 'search');
  registry.contribute(sources, { name: 'crawler' }, 'crawler');
  registry.contribute(sources, { name: 'press' }, 'press');
  t.deepEqual(registry.get(sources).map((s) => s.name), ['crawler', 'press']);
  t.deepEqual(registry.get(other), []);
  t.deepEqual(registry.undeclaredContributions(), []);
  registry.contribute(other, 1, 'x');
  t.deepEqual(registry.undeclaredContributions(), ['test.other']);
});

test('two plugins cannot declare the same point', (t) => {
  const point = createExtensionPoint<string>('test.point');
  const registry = new ExtensionRegistry();
  registry.declare(point, 'a');
  t.throws(() => registry.declare(point, 'b'), { message: /declared by both "a" and "b"/ });
});
