import test from 'ava';
import { randomBytes } from 'node:crypto';
import { SecretBox, toCsv } from '../src/index.js';

test('sealed secrets open with the same master key only', (t) => {
  const box = new SecretBox(randomBytes(32));
  const sealed = box.seal('fk_secret');
  t.false(sealed.includes('fk_secret'));
  t.is(box.open(sealed).toString(), 'fk_secret');
  t.not(box.seal('fk_secret'), sealed, 'a fresh IV each time');
  t.throws(() => new SecretBox(randomBytes(32)).open(sealed));
  const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
  t.throws(() => box.open(tampered));
});

test('csv flattens objects, joins lists of values, drops lists of objects, quotes and defuses formulas', (t) => {
  const csv = toCsv([
    { id: 1, site: { domain: 'a.com' }, tags: ['x', 'y'], paths: [{ p: 1 }], note: 'say "hi", ok' },
    { id: 2, site: { domain: '=cmd()' }, tags: [], paths: [], note: null },
  ]);
  t.is(csv, 'id,site.domain,tags,note\r\n1,a.com,"x,y","say ""hi"", ok"\r\n2,\'=cmd(),,\r\n');
});
