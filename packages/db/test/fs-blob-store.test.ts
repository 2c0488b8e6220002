import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '../src/index.js';

test('blobs round-trip, prefixes delete, and keys cannot escape the root', async (t) => {
  const store = new FsBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')));
  await store.put('media/1/original.lmk', Buffer.from('one'));
  await store.put('media/1/thumb.jpg', Buffer.from('two'));
  await store.put('media/2/original.jpg', Buffer.from('three'));
  t.is((await store.get('media/1/original.lmk'))?.toString(), 'one');
  t.is(await store.get('media/9/none'), null);
  await store.deletePrefix('media/1');
  t.is(await store.get('media/1/thumb.jpg'), null);
  t.is((await store.get('media/2/original.jpg'))?.toString(), 'three');
  for (const bad of ['../etc/passwd', 'media/../../x', '/abs', 'media/.hidden', '']) {
    await t.throwsAsync(store.put(bad, Buffer.from('x')), undefined, bad);
  }
});
