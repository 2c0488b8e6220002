import test from 'ava';
import type { DataSource } from 'typeorm';
import { TOKENS } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { getSharp, MAX_BITS, mergedRanges, prepareQuery, queryFingerprint, queryRanges, syntheticPhoto, votingSubset } from '@filigrane/vision';
import { readPostings } from '../src/postings-read';

// The one-bucket read (an account of ~50,000 media or more) must return exactly what the general
// per-range read returns for the same ranges, stop-word cap included.

let server: TestServer;
test.before(async () => {
  server = await startTestServer({ plugins: ['search'] });
});
test.after.always(async () => server?.close());

test('the one-bucket read and the per-range read return the same postings, under the same cap', async (t) => {
  t.timeout(120_000);
  const { id, apiKey } = await server.createAccount('reader');
  const photo = await getSharp()(await syntheticPhoto(51)).jpeg({ quality: 90 }).toBuffer();
  // The same picture twice: its buckets hold two postings, the other's one.
  for (const [path, bytes] of [['/reader/a.jpg', photo], ['/reader/b.jpg', photo], ['/reader/c.jpg', await getSharp()(await syntheticPhoto(52)).jpeg({ quality: 90 }).toBuffer()]] as const) {
    const res = await server.call('PUT', `/api/v4/media${path}`, { key: apiKey, body: bytes, headers: { 'content-type': 'image/jpeg' } });
    t.is(res.status, 201, res.text);
  }
  const fp = await queryFingerprint(await prepareQuery(await getSharp()(photo).resize(500).jpeg({ quality: 75 }).toBuffer()));
  const f = votingSubset(fp.features, 750);
  const merged = mergedRanges([queryRanges(f.descriptors, f.count, MAX_BITS)]);
  const db = server.get<DataSource>(TOKENS.DataSource);
  const read = async (cap: number, form: 'buckets' | 'ranges') =>
    (await readPostings(db, id, merged, cap, form)).map((row) => `${row.r}:${row.postings.toString('hex')}`).sort();
  const all = await read(1000, 'buckets');
  t.true(all.length > 50, `${all.length} buckets met`);
  t.deepEqual(all, await read(1000, 'ranges'));
  const single = await read(1, 'buckets');
  t.true(single.length > 0 && single.length < all.length, `${single.length} of ${all.length} under a cap of 1`);
  t.deepEqual(single, await read(1, 'ranges'));
});
