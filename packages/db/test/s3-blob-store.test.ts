import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { FsBlobStore, createBlobStore, parseBlobStoreUrl, startTestS3Server, type TestS3Server } from '../src/index.js';
import { S3BlobStore } from '../src/s3-blob-store.js';
import { BlobStoreUnavailableError } from '@filigrane/core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let s3: TestS3Server;
test.before(async () => {
  s3 = await startTestS3Server();
});
test.after.always(async () => {
  await s3?.close();
});

const collect = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const k of it) out.push(k);
  return out;
};

function s3Store(prefix: string): S3BlobStore {
  Object.assign(process.env, s3.env());
  const store = createBlobStore({ url: `s3://${s3.bucket}/${prefix}`, endpoint: s3.endpoint, forcePathStyle: true, dataDir: '/nonexistent' });
  if (!(store instanceof S3BlobStore)) throw new Error('expected an S3 store');
  return store;
}

for (const kind of ['s3', 'fs'] as const) {
  test(`${kind}: put/get, streamed multipart upload, ranged reads, listing and deletion by prefix`, async (t) => {
    t.timeout(60_000);
    const store = kind === 's3' ? s3Store(`run-${randomBytes(3).toString('hex')}`) : new FsBlobStore(mkdtempSync(join(tmpdir(), 'blobs-')));
    await store.put('media/1/original.lmk', Buffer.from('one'));
    await store.put('media/1/thumb.jpg', Buffer.from('two'));
    await store.put('media/10/original.jpg', Buffer.from('ten'));
    await store.put('media/2/original.jpg', Buffer.from('three'));
    t.is((await store.get('media/1/original.lmk'))?.toString(), 'one');
    t.is(await store.get('media/9/none'), null);
    t.is(await store.open('media/9/none'), null);

    // 20 MiB from a stream that yields 1 MiB chunks: three 8 MiB parts
    const big = randomBytes(20 * 1024 * 1024 + 17);
    const chunks = function* () {
      for (let o = 0; o < big.length; o += 1024 * 1024) yield big.subarray(o, o + 1024 * 1024);
    };
    t.is(await store.putStream('crawler/1/2/3/batch.warc.gz', Readable.from(chunks())), big.length);
    t.true((await store.get('crawler/1/2/3/batch.warc.gz'))!.equals(big));
    const opened = await store.open('crawler/1/2/3/batch.warc.gz', (size) => ({ start: size - 100, end: size - 51 }));
    t.is(opened!.size, big.length);
    t.deepEqual(opened!.range, { start: big.length - 100, end: big.length - 51 });
    const chunk: Buffer[] = [];
    for await (const c of opened!.stream) chunk.push(c as Buffer);
    t.true(Buffer.concat(chunk).equals(big.subarray(big.length - 100, big.length - 50)));
    const whole = await store.open('media/2/original.jpg');
    t.is(await text(whole!.stream), 'three');

    // a failing source leaves no blob behind
    const failing = new Readable({ read() { this.destroy(new Error('source broke')); } });
    await t.throwsAsync(store.putStream('media/3/original.jpg', failing), { message: /source broke/ });
    t.is(await store.get('media/3/original.jpg'), null);

    t.deepEqual(await collect(store.list('media/1')), ['media/1/original.lmk', 'media/1/thumb.jpg']);
    t.deepEqual(await collect(store.list('media')), ['media/1/original.lmk', 'media/1/thumb.jpg', 'media/10/original.jpg', 'media/2/original.jpg']);
    t.deepEqual(await collect(store.list('nothing')), []);
    await store.deletePrefix('media/1');
    t.is(await store.get('media/1/thumb.jpg'), null);
    t.is((await store.get('media/10/original.jpg'))?.toString(), 'ten', 'media/1 is a folder, not a string prefix');
    await store.delete('media/2/original.jpg');
    t.is(await store.get('media/2/original.jpg'), null);
    for (const bad of ['../etc/passwd', 'media/../../x', '/abs', 'media/.hidden', '']) {
      await t.throwsAsync(store.put(bad, Buffer.from('x')), undefined, bad);
    }
  });
}

test('s3: two stores on one bucket with different prefixes do not see each other', async (t) => {
  const a = s3Store('tenant-a');
  const b = s3Store('tenant-b');
  await a.put('media/1/original.jpg', Buffer.from('a'));
  t.is(await b.get('media/1/original.jpg'), null);
  t.deepEqual(await collect(b.list('media')), []);
});

test('s3: a store that fails is BlobStoreUnavailableError naming the key, never a missing file; the boot check says what is wrong', async (t) => {
  t.timeout(60_000);
  const unavailable = (what: RegExp) => ({ instanceOf: BlobStoreUnavailableError, message: what });
  await s3Store('ok').check!();
  Object.assign(process.env, s3.env());
  const noBucket = createBlobStore({ url: 's3://no-such-bucket/p', endpoint: s3.endpoint, forcePathStyle: true, dataDir: '/nonexistent' });
  await t.throwsAsync(noBucket.check!(), { message: /^BLOB_STORE_URL s3:\/\/no-such-bucket\/p: the bucket "no-such-bucket" does not exist/ });
  await t.throwsAsync(noBucket.get('media/1/original'), unavailable(/get s3:\/\/no-such-bucket\/p\/media\/1\/original/), 'the bucket is missing, not the file');
  // open reads with a HEAD first, whose bare 404 does not say which is missing (streamed files: artifacts, videos).
  await t.throwsAsync(noBucket.open('media/1/original'), unavailable(/open s3:\/\/no-such-bucket\/p\/media\/1\/original failed: the bucket "no-such-bucket" does not exist/), 'open: the bucket is missing, not the file');
  const refused = new S3BlobStore({ bucket: s3.bucket, prefix: 'p', endpoint: s3.endpoint, forcePathStyle: true, client: { credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'x' } } });
  await t.throwsAsync(refused.check(), { message: /credentials were refused/ });
  await t.throwsAsync(refused.put('media/1/original', Buffer.from('x')), unavailable(/put s3:\/\/filigrane-test\/p\/media\/1\/original/));

  // The S3 server stops: every operation fails with the key, none answers "no such file".
  const gone = await startTestS3Server('going');
  const store = new S3BlobStore({ bucket: 'going', prefix: '', endpoint: gone.endpoint, forcePathStyle: true });
  await store.put('media/2/original', Buffer.from('kept'));
  await gone.close();
  await t.throwsAsync(store.get('media/2/original'), unavailable(/get s3:\/\/going\/media\/2\/original failed: .*ECONNREFUSED/));
  await t.throwsAsync(store.open('media/2/original'), unavailable(/open s3:\/\/going\/media\/2\/original/));
  await t.throwsAsync(store.putStream('media/3/original', Readable.from([Buffer.from('x')])), unavailable(/upload s3:\/\/going\/media\/3\/original/));
  await t.throwsAsync(collect(store.list('media')), unavailable(/list s3:\/\/going\/media\//));
  await t.throwsAsync(store.check(), { message: /could not be reached/ });
});

test('BLOB_STORE_URL is checked', (t) => {
  t.deepEqual(parseBlobStoreUrl('s3://my-bucket/some/prefix/'), { bucket: 'my-bucket', prefix: 'some/prefix' });
  t.deepEqual(parseBlobStoreUrl('s3://my-bucket'), { bucket: 'my-bucket', prefix: '' });
  for (const bad of ['http://x/y', 's3://', 's3://Bad_Bucket/x', '/data/blobs']) t.throws(() => parseBlobStoreUrl(bad), { message: /BLOB_STORE_URL/ });
  t.true(createBlobStore({ dataDir: '/tmp/x' }) instanceof FsBlobStore);
});
