import test from 'ava';
import type { DataSource } from 'typeorm';
import { TOKENS } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { getSharp, MAX_BITS, sharedBits, syntheticTexture } from '@filigrane/vision';
import { IdentificationService } from '../src/identification.service';

// In an account of over ~33,000 media the index's keys have their full 22 bits, and the descriptors
// of a tenth of a textured photo, rescaled ~3x, rarely share a bucket with their original's: the
// reductions' votes must still bring the original to RANSAC (docs/visual-index.md, session 15).

const ARCHIVE = 33_000;
const [W, H] = [1800, 1200];
const SEEDS = [2, 4];
const PLACES = [0.1, 0.5, 0.9];

let server: TestServer;
test.before(async () => {
  server = await startTestServer({ plugins: ['search'] });
});
test.after.always(async () => server?.close());

test('at 22-bit keys, tenths of textured photos are found as in a small account', async (t) => {
  t.timeout(300_000);
  const sharp = getSharp();
  const photos = await Promise.all(SEEDS.map(async (seed) => sharp(await syntheticTexture(seed, W, H)).jpeg({ quality: 92 }).toBuffer()));
  const [w, h] = [Math.round(W * Math.sqrt(0.1)), Math.round(H * Math.sqrt(0.1))];
  const tenths: { photo: number; bytes: Buffer }[] = [];
  for (const [photo, bytes] of photos.entries()) {
    for (const fx of PLACES) {
      for (const fy of PLACES) {
        const window = { left: Math.round((W - w) * fx), top: Math.round((H - h) * fy), width: w, height: h };
        tenths.push({ photo, bytes: await sharp(bytes).extract(window).jpeg({ quality: 90 }).toBuffer() });
      }
    }
  }
  const register = async (name: string) => {
    const account = await server.createAccount(name);
    for (const [k, photo] of photos.entries()) {
      const res = await server.call('PUT', `/api/v4/media/${name}/${k}.jpg`, { key: account.apiKey, body: photo, headers: { 'content-type': 'image/jpeg' } });
      t.is(res.status, 201, res.text);
    }
    return account.id;
  };
  const identification = server.get(IdentificationService);
  const found = async (accountId: number, name: string) => {
    let n = 0;
    for (const tenth of tenths) {
      const [first] = await identification.identify(accountId, tenth.bytes, { mode: 'near_duplicate', transforms: ['scale'], detect: false });
      if (first?.media.path === `/${name}/${tenth.photo}.jpg`) n++;
    }
    return n;
  };

  const inSmall = await found(await register('small'), 'small');
  t.true(inSmall >= 10, `${inSmall} of ${tenths.length} found in a small account`);
  // The same photos among 33,000 other entries (rows without postings: only the key length changes).
  const large = await register('large');
  await server.get<DataSource>(TOKENS.DataSource).query(
    `WITH m AS (
       INSERT INTO media (account_id, path, parent, name, type, kind, width, height, format)
       SELECT $1, '/large/archive/' || g || '.jpg', '/large/archive', g || '.jpg', 'image', 'plain', 512, 384, 'jpeg' FROM generate_series(1, $2) g RETURNING id)
     INSERT INTO visual_index (media_id, account_id, width, height, count, points, descriptors, dhash, thumb, bands, buckets)
     SELECT id, $1, 512, 384, 0, '', '', '\\x0000000000000000', '', '{}', '{}' FROM m`,
    [large, ARCHIVE],
  );
  t.is(sharedBits(ARCHIVE + photos.length), MAX_BITS);
  // Measured: 13 of the small account's 14 (4 votes needed everywhere: 8).
  const inLarge = await found(large, 'large');
  t.true(inLarge >= inSmall - 2, `${inLarge} found at 22-bit keys against ${inSmall} in a small account`);
});
