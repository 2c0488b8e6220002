/**
 * The work an embedding does in slices while libvips codes (idle-work.ts): slices run only while the
 * awaited promise is pending, its value or error comes through, finish() completes what is left; and the
 * pixel hash taken in slices is the one-shot digest.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { touchJob } from '../src/embed';
import { IdleWork } from '../src/idle-work';
import { pixelHash, pixelHasher } from '../src/pixel-hash';

test('slices run while the promise is pending, the rest at finish()', async (t) => {
  const idle = new IdleWork();
  let a = 0;
  let b = 0;
  // The "codec" finishes once the second job has done 5 slices (whatever the machine's load).
  let coded: () => void = () => undefined;
  const codec = new Promise<string>((resolve) => (coded = () => resolve('coded')));
  idle.add(() => ++a === 3);
  idle.add(() => {
    if (++b === 5) coded();
    return b === 1000000;
  });
  t.is(await idle.during(codec), 'coded');
  t.is(a, 3, 'the first job finished before the second started');
  t.true(b >= 5 && b <= 6, `the second job stopped within a slice of the codec's end (${b} slices)`);
  const before = b;
  t.is(await idle.during(sleep(1, 'timer')), 'timer');
  t.true(b > before, 'and ran again during the next wait');
  await t.throwsAsync(idle.during(Promise.reject(new Error('bad file'))), { message: 'bad file' });
  idle.finish();
  t.is(b, 1000000);
  t.is(await idle.during(Promise.resolve(7)), 7, 'nothing left: the promise alone');
});

test('the pixel hash in slices is the one-shot hash', (t) => {
  const data = new Uint8Array(3 * 101 * 67).map((_, i) => (i * 2654435761) >>> 24);
  const raw = { data, width: 101, height: 67, channels: 3 as const, depth: 8 as const };
  for (const slice of [1, 1000, 4096, data.length, data.length + 1]) {
    const h = pixelHasher(raw);
    let calls = 0;
    while (!h.update(slice)) calls++;
    t.true(calls <= Math.ceil(data.length / slice));
    t.deepEqual(h.digest(), pixelHash(raw), `slices of ${slice} bytes`);
  }
  t.throws(() => pixelHasher(raw).digest(), { message: /before every sample/ });
});

test('the job mapping in the marked copy writes nothing once stopped', (t) => {
  const buffer = new Uint8Array(9 << 20).fill(7);
  const touch = touchJob(buffer);
  t.false(touch.slice());
  t.is(buffer[0], 0);
  t.is(buffer[buffer.length - 1], 7);
  // The apply pass writes the marked image from here on: later slices must leave it alone.
  touch.stop();
  t.true(touch.slice());
  t.is(buffer[buffer.length - 1], 7);
  const whole = touchJob(new Uint8Array(5));
  t.true(whole.slice());
});
