import test from 'ava';
import { DESCRIPTOR_BYTES } from '../src/orb';
import { transformPlausibility } from '../src/plausibility';
import { MAX_BITS, spreadSelection, VisualIndex, type IndexEntry } from '../src/visual-index';
import { entryPostings, featureKey, POSTING_BYTES, queryRanges, votingSubset, VoteTally } from '../src/visual-postings';

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), (s >>> 0) / 2 ** 32);
}

/** Random descriptors and points, with a flat dHash/thumbnail that never qualifies as exact. */
function entry(seed: number, count = 300): IndexEntry {
  const r = rng(seed);
  const descriptors = Uint8Array.from({ length: count * DESCRIPTOR_BYTES }, () => Math.floor(r() * 256));
  const points = Float32Array.from({ length: 2 * count }, (_, i) => r() * (i % 2 ? 384 : 512));
  return { descriptors, count, points, dhash: new Uint8Array(8), thumb: new Uint8Array(256), aspect: 4 / 3 };
}

/** A "copy": the first `keep` descriptors of `e`, each with `flips` random bits flipped. */
function copyOf(e: IndexEntry, keep: number, flips: number, seed: number): Uint8Array {
  const r = rng(seed);
  const out = e.descriptors.slice(0, keep * DESCRIPTOR_BYTES);
  for (let i = 0; i < keep; i++) {
    for (let f = 0; f < flips; f++) {
      const bit = Math.floor(r() * 256);
      out[i * DESCRIPTOR_BYTES + (bit >> 3)]! ^= 1 << (bit & 7);
    }
  }
  return out;
}

test('votes find the original of noisy descriptors among distractors; removal is immediate', (t) => {
  const index = new VisualIndex();
  const media = Array.from({ length: 200 }, (_, i) => entry(i + 1));
  media.forEach((e, i) => index.add(1000 + i, e));
  t.is(index.size, 200);
  const query = copyOf(media[42]!, 120, 12, 7);
  const found = index.vote(query, 120);
  t.is(found[0]?.id, 1042);
  t.true(found[0]!.votes >= 20, `votes ${found[0]!.votes}`);
  t.true(found.slice(1).every((c) => c.votes < found[0]!.votes / 4), JSON.stringify(found.slice(0, 3)));
  index.remove(1042);
  t.false(index.vote(query, 120).some((c) => c.id === 1042));
  t.is(index.size, 199);
  t.true(index.deadRatio > 0);
  const unrelated = entry(99_999).descriptors;
  t.deepEqual(index.vote(unrelated, 300), [], 'random descriptors collect no candidate');
});

test('exact path needs a close dHash and agreeing, non-flat thumbnails', (t) => {
  const index = new VisualIndex();
  const thumb = Uint8Array.from({ length: 256 }, (_, i) => (i * 37) % 251);
  const e = { ...entry(5), dhash: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), thumb };
  index.add(7, e);
  t.deepEqual(index.exact({ dhash: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 9]), thumb: thumb.map((v) => Math.min(255, v + 3)), aspect: 4 / 3 }), [7]);
  t.deepEqual(index.exact({ dhash: Uint8Array.from([255, 2, 3, 4, 5, 6, 7, 8]), thumb, aspect: 4 / 3 }), [], 'dHash too far');
  t.deepEqual(index.exact({ dhash: e.dhash, thumb: thumb.slice().reverse(), aspect: 4 / 3 }), [], 'other picture');
  t.deepEqual(index.exact({ dhash: e.dhash, thumb, aspect: 1 }), [], 'other aspect');
});

test('an entry met in every table by fewer query descriptors than the vote needs is not scored', (t) => {
  const e = entry(12, 400);
  const query = e.descriptors.slice(0, 4 * DESCRIPTOR_BYTES);
  const ranges = queryRanges(query, 4, MAX_BITS);
  const posting = (id: number, j: number) => {
    const b = Buffer.alloc(POSTING_BYTES);
    b.writeUInt32LE(id, 0);
    b.writeUInt16LE(j, 4);
    return b;
  };
  const tally = new VoteTally(query, 4, ranges);
  // Entry 7 meets descriptors 0-2 in all four tables (12 meetings, 3 descriptors); entry 9 meets
  // each of the 4 descriptors in one table only (4 meetings, 4 descriptors).
  const firstRange = new Set<number>();
  ranges.lo.forEach((_, r) => {
    const askers = ranges.askers[r]!;
    const parts: Buffer[] = [];
    if (askers.some((i) => i < 3)) parts.push(posting(7, askers[0]!));
    const fresh = askers.filter((i) => !firstRange.has(i));
    if (fresh.length) {
      fresh.forEach((i) => firstRange.add(i));
      parts.push(posting(9, fresh[0]!));
    }
    if (parts.length) tally.add(r, Buffer.concat(parts));
  });
  const wanted = tally.contenders(4, 10);
  t.true(wanted.length > 0 && wanted.every((k) => Math.floor(k / 0x10000) === 9), JSON.stringify(wanted));
});

test('spread selection covers every cell of the image', (t) => {
  // 900 points crowded in the top-left cell, 100 spread elsewhere: a selection of 160 keeps both.
  const r = rng(3);
  const points = new Float32Array(2000);
  for (let i = 0; i < 1000; i++) {
    const crowd = i < 900;
    points[2 * i] = crowd ? r() * 100 : r() * 512;
    points[2 * i + 1] = crowd ? r() * 80 : r() * 384;
  }
  const chosen = spreadSelection(1000, 160, points);
  t.is(chosen.length, 160);
  t.true(chosen.filter((i) => i >= 900).length >= 60);
});

test('a query descriptor votes once per entry, whichever of its tables meet it; votingSubset keeps the index selection', (t) => {
  const e = entry(11, 400);
  const p = entryPostings(7, e);
  const rows = new Map(p.buckets.map((b, k) => [b, p.postings.subarray(p.offsets[k]!, p.offsets[k]! + p.counts[k]! * POSTING_BYTES)]));
  // The entry's own descriptors as the query, at full resolution: each indexed one meets its
  // posting in all 4 tables and must still vote once.
  const ranges = queryRanges(e.descriptors, e.count, MAX_BITS);
  const tally = new VoteTally(e.descriptors, e.count, ranges);
  ranges.lo.forEach((lo, r) => {
    const postings = rows.get(lo);
    if (postings) tally.add(r, Buffer.from(postings));
  });
  const wanted = tally.contenders(4, 10);
  t.is(wanted.length, 256, 'each indexed feature of the entry is asked once');
  t.true(wanted.every((k) => Math.floor(k / 0x10000) === 7));
  const stored = (far: (j: number) => boolean) =>
    new Map(
      wanted.map((k) => {
        const j = k % 0x10000;
        const d = e.descriptors.slice(j * DESCRIPTOR_BYTES, (j + 1) * DESCRIPTOR_BYTES);
        if (far(j)) for (let i = 0; i < 6; i++) d[i] = ~d[i]! & 0xff; // 48 bits changed: beyond the vote distance
        return [featureKey(7, j), d];
      }),
    );
  t.deepEqual(tally.top(stored(() => false), 4, 10), [{ entry: 7, votes: 256 }]);
  const far = tally.top(stored((j) => j % 2 === 0), 4, 10);
  t.is(far[0]!.votes, wanted.filter((k) => (k % 0x10000) % 2 === 1).length, 'a stored descriptor beyond the vote distance does not vote');
  t.deepEqual(tally.top(new Map(), 4, 10), [], 'an entry whose row is gone has no votes');
  t.deepEqual(tally.contenders(10_000, 10), [], 'nothing met often enough is scored');

  const sub = votingSubset(e, 100);
  const chosen = spreadSelection(400, 100, e.points);
  t.is(sub.count, 100);
  t.deepEqual([...sub.descriptors], chosen.flatMap((j) => [...e.descriptors.subarray(j * DESCRIPTOR_BYTES, (j + 1) * DESCRIPTOR_BYTES)]));
  t.deepEqual([...sub.points], chosen.flatMap((j) => [e.points[2 * j]!, e.points[2 * j + 1]!]));
  t.is(votingSubset(e, 400), e, 'a fingerprint within the limit is used as is');
});

test('plausibility rejects mirrored, folded, tiny and stretched transforms', (t) => {
  const ok = transformPlausibility([0.5, 0, 10, 0, 0.5, 20, 0, 0, 1], 512, 384, 512, 384);
  t.true(ok.ok);
  t.is(ok.areaRatio, 0.25);
  t.false(transformPlausibility([-1, 0, 512, 0, 1, 0, 0, 0, 1], 512, 384, 512, 384).ok, 'mirror');
  t.false(transformPlausibility([0.01, 0, 10, 0, 0.01, 10, 0, 0, 1], 512, 384, 512, 384).ok, 'tiny');
  t.false(transformPlausibility([3, 0, 0, 0, 0.3, 0, 0, 0, 1], 512, 384, 512, 384).ok, 'stretched');
  t.false(transformPlausibility([1, 0, 5000, 0, 1, 0, 0, 0, 1], 512, 384, 512, 384).ok, 'elsewhere');
  t.false(transformPlausibility([1, 0, 0, 0, 1, 0, 0.01, 0, 1], 512, 384, 512, 384).ok, 'behind the camera');
});
