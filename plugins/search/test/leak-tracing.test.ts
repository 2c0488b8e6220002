import test from 'ava';
import sharp from 'sharp';
import { TOKENS, type MediaReader } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { MatchPipelineService } from '@filigrane/plugin-search';
import { syntheticPhoto } from '@filigrane/vision';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';

/**
 * Leak tracing: the same picture registered at two sizes (each watermarked on its own) and as
 * transactional copies. They all look the same; only the watermark names the one that leaked.
 */
let server: TestServer;
let alice: { apiKey: string; id: number };
const leaked = new Map<string, Buffer>(); // media path -> the watermarked file given out

interface Found { watermarked: boolean; image: { media_path: string } }

test.before(async () => {
  server = await startTestServer({ plugins: ['search'], workers: false });
  alice = await server.createAccount('alice');
  const der = await fetch(new URL('/api/v4/account/download/public_key.der', server.url), { headers: { authorization: `Token ${alice.apiKey}` } });
  const publicKey = Buffer.from(await der.arrayBuffer());
  const large = await syntheticPhoto(7, 1280, 960);
  const small = await sharp(large).resize(640, 480).png().toBuffer();
  const put = async (path: string, lmk: Buffer) => {
    const res = await server.call('PUT', `/api/v4/media${path}`, { key: alice.apiKey, body: lmk, headers: { 'content-type': 'application/lmk' } });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  };
  // Registered first: the normal registrations, then the copies for three recipients.
  for (const [path, image, transactional] of [
    ['/alice/sizes/large.png', large, false],
    ['/alice/sizes/small.png', small, false],
    ['/alice/sizes/copy-1.png', large, true],
    ['/alice/sizes/copy-2.png', large, true],
    ['/alice/sizes/copy-3.png', large, true],
  ] as const) {
    const e = await embed(image, generateKey(), { transactional });
    leaked.set(path, e.image);
    await put(path, encodeLmk(e.registration, publicKey));
  }
});
test.after.always(async () => server?.close());

const jpeg = (img: Buffer, quality: number) => sharp(img).jpeg({ quality }).toBuffer();
async function cropResize(img: Buffer): Promise<Buffer> {
  const { width, height } = await sharp(img).metadata();
  const w = Math.round(width! * 0.8), h = Math.round(height! * 0.8);
  return sharp(img).extract({ left: Math.round(width! * 0.15), top: Math.round(height! * 0.05), width: w, height: h }).resize(Math.round(w * 0.6)).jpeg({ quality: 80 }).toBuffer();
}

async function search(img: Buffer): Promise<Found[]> {
  const res = await server.call('POST', '/api/v4/searches/', { key: alice.apiKey, json: { file: `data:image/jpeg;base64,${img.toString('base64')}`, mode: 'near_duplicate' } });
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return (res.json as { matches: Found[] }).matches;
}

for (const [path, attack] of [
  ['/alice/sizes/large.png', (b: Buffer) => jpeg(b, 70)],
  ['/alice/sizes/small.png', cropResize],
  ['/alice/sizes/copy-2.png', cropResize],
  ['/alice/sizes/copy-3.png', (b: Buffer) => jpeg(b, 50)],
] as const) {
  test(`an attacked copy of ${path} names it first, and only it as watermarked`, async (t) => {
    const found = await search(await attack(leaked.get(path)!));
    t.true(found.length >= 2, 'the look-alikes are candidates too');
    t.is(found[0]?.image.media_path, path);
    t.deepEqual(found.filter((f) => f.watermarked).map((f) => f.image.media_path), [path]);
  });
}

test('the match pipeline records the leaked transactional copy, not its look-alikes', async (t) => {
  const pipeline = server.app.container.get(MatchPipelineService);
  const found = await pipeline.submit({
    accountId: alice.id,
    source: 'test',
    kind: 'web',
    image: { bytes: await cropResize(leaked.get('/alice/sizes/copy-1.png')!) },
    page: { url: 'https://news.example/story' },
  });
  // Media's read-only interface names the media found (no SQL on media's table).
  const records = await server.get<MediaReader>(TOKENS.MediaReader).byIds(found.map((m) => m.mediaId!), alice.id);
  const pathOf = new Map(records.map((r) => [r.id, r.path]));
  const watermarked = found.filter((m) => m.watermarked).map((m) => pathOf.get(m.mediaId!));
  t.deepEqual(watermarked, ['/alice/sizes/copy-1.png']);
  const named = found.map((m) => pathOf.get(m.mediaId!));
  for (const other of ['/alice/sizes/large.png', '/alice/sizes/copy-2.png', '/alice/sizes/copy-3.png']) t.false(named.includes(other), other);
});
