import test from 'ava';
import { ApiError, WorkPool } from '../src/index.js';

test('a full pool refuses with 503 and Retry-After; jobs may wait; freed slots go to the waiting', async (t) => {
  const pool = new WorkPool(1, 1, 7);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const order: string[] = [];
  const first = pool.run(async () => {
    await gate;
    order.push('first');
  });
  const second = pool.run(async () => void order.push('second'));
  const err = await t.throwsAsync(pool.run(async () => void order.push('third')), { instanceOf: ApiError });
  t.is(err!.statusCode, 503);
  t.is(err!.code, 'busy');
  t.is(err!.headers['retry-after'], '7');
  const job = pool.run(async () => void order.push('job'), { wait: true });
  release();
  await Promise.all([first, second, job]);
  t.deepEqual(order, ['first', 'second', 'job']);
  await pool.run(async () => void order.push('after'));
  t.is(order.at(-1), 'after', 'slots are given back');
});
