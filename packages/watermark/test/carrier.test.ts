import test from 'ava';
import { generateKey } from '../src/key';
import { gaussianCarrier } from '../src/carrier';
import { normalisedCorrelation } from '../src/p-value';
import { InvalidMediaKeyError } from '../src/errors';

test('the carrier is deterministic per key', (t) => {
  const key = generateKey();
  t.deepEqual(gaussianCarrier(key, 1001), gaussianCarrier(Buffer.from(key), 1001));
  // a prefix of a longer carrier is the shorter carrier: the band order alone fixes the mapping
  t.deepEqual(gaussianCarrier(key, 1000), gaussianCarrier(key, 1001).subarray(0, 1000));
});

test('carriers of different keys are independent and standard normal', (t) => {
  const n = 20_000;
  const a = gaussianCarrier(generateKey(), n);
  const b = gaussianCarrier(generateKey(), n);
  // correlation of independent carriers ~ N(0, 1/n): |c| < 5/sqrt(n)
  t.true(Math.abs(normalisedCorrelation(a, b)) < 5 / Math.sqrt(n));
  let mean = 0;
  let m2 = 0;
  let m4 = 0;
  for (const v of a) {
    mean += v / n;
    m2 += (v * v) / n;
    m4 += (v * v * v * v) / n;
  }
  t.true(Math.abs(mean) < 0.04);
  t.true(Math.abs(m2 - 1) < 0.05);
  t.true(Math.abs(m4 - 3) < 0.3, 'kurtosis of a Gaussian');
});

test('a key must be 32 bytes', (t) => {
  t.throws(() => gaussianCarrier(Buffer.alloc(16), 10), { instanceOf: InvalidMediaKeyError });
});
