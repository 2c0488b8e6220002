import test from 'ava';
import { pipelined } from '../src/pipelined.js';

async function* numbers(n: number) {
  for (let i = 0; i < n; i++) yield i;
}

test('results come in order, with at most depth pieces of work running', async (t) => {
  let running = 0;
  let most = 0;
  const out: number[] = [];
  const work = async (i: number) => {
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, (7 - (i % 7)) * 2)); // later items finish first
    running--;
    return i * 10;
  };
  for await (const r of pipelined(numbers(20), work, 3)) out.push(r);
  t.deepEqual(out, Array.from({ length: 20 }, (_, i) => i * 10));
  t.is(most, 3);
});

test('a failure reaches the caller at its turn', async (t) => {
  const work = async (i: number) => {
    if (i === 2) throw new Error('frame 2');
    return i;
  };
  const seen: number[] = [];
  await t.throwsAsync(async () => {
    for await (const r of pipelined(numbers(6), work, 3)) seen.push(r);
  }, { message: 'frame 2' });
  t.deepEqual(seen, [0, 1]);
});
