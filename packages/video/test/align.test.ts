import test from 'ava';
import { alignHits, type FrameHit } from '../src/align.js';

const span = 0.5;

test('a copied clip aligns on its offset: both time ranges, one pair per frame', (t) => {
  // Query frames 0..5 s at 2 fps copy the registered video from 12 s on; a chance hit elsewhere.
  const hits: FrameHit[] = [];
  for (let i = 0; i < 10; i++) hits.push({ mediaId: 7, queryTime: i / 2, matchedTime: 12 + i / 2, score: 40 });
  hits.push({ mediaId: 7, queryTime: 1, matchedTime: 50, score: 15 });
  const [a] = alignHits(hits, { frameSpan: span, minFrames: 3 });
  t.is(a!.mediaId, 7);
  t.is(a!.offset, 12);
  t.is(a!.frames, 10);
  t.is(a!.votes, 400);
  t.deepEqual(a!.query, { start: 0, end: 5, duration: 5 });
  t.deepEqual(a!.matched, { start: 12, end: 17, duration: 5 });
});

test('one registered frame that looks like many query frames is one piece of evidence, not a match', (t) => {
  // A short registered video (two frames) of a similar still background: every query frame votes
  // for it, within the offset tolerance of several query frames.
  const hits: FrameHit[] = [];
  for (let i = 0; i < 12; i++) hits.push({ mediaId: 3, queryTime: i / 2, matchedTime: 0.5, score: 14 });
  t.deepEqual(alignHits(hits, { frameSpan: span, minFrames: 3 }), []);
  // The same hits spread over distinct registered frames in order do make one.
  const ordered = hits.map((h, i) => ({ ...h, matchedTime: 20 + i / 2 }));
  t.is(alignHits(ordered, { frameSpan: span, minFrames: 4 })[0]?.frames, 12);
});

test('hits that agree on no common offset are no match', (t) => {
  const hits: FrameHit[] = [0, 1, 2, 3, 4, 5].map((i) => ({ mediaId: 9, queryTime: i / 2, matchedTime: (i * 7) % 30, score: 30 }));
  t.deepEqual(alignHits(hits, { frameSpan: span, minFrames: 3 }), []);
});
