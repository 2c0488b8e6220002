import test from 'ava';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { contribute, definePlugin, EVENT_LISTENERS, type DomainEvent } from '@filigrane/core';
import { defaultPlugins } from '@filigrane/gateway';
import { configuredPlugins } from '@filigrane/server';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { execFileSync } from 'node:child_process';

let server: TestServer;
let key: string;
let marked: Buffer;
let original: Buffer;

const dataUri = (b: Buffer) => `data:image/jpeg;base64,${b.toString('base64')}`;
const feed = (image: Buffer, page: string, k = key, session?: number) =>
  server.call('POST', '/api/v4/partner-feed/sightings/', { key: k, json: { image: dataUri(image), page_url: page, image_url: `${page}/img.jpg`, session_id: session } });

// Listens to domain events as webhooks and digests do, without importing the matches plugin.
const events: DomainEvent[] = [];
const eventProbe = definePlugin({ id: 'event-probe', contributions: [contribute(EVENT_LISTENERS, () => (e: DomainEvent) => void events.push(e))] });

async function until(probe: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test.before(async () => {
  // The example is a package of its own: build it, then load it the way an operator would.
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'examples/feed-source'], { stdio: 'inherit' });
  const env = { FILIGRANE_PLUGINS: './examples/feed-source' };
  // Workers run: match.* events leave through the outbox, delivered by a job.
  server = await startTestServer({ env, workers: true, plugins: [...defaultPlugins(), ...(await configuredPlugins(env)), eventProbe] });
  key = (await server.createAccount('feeder')).apiKey;
  const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${key}` } })).arrayBuffer());
  original = await syntheticPhoto(21);
  const result = await embed(original, generateKey());
  marked = result.image;
  const reg = await server.call('PUT', '/api/v4/media/feeder/marked/photo.png', { key, body: encodeLmk(result.registration, der), headers: { 'content-type': 'application/lmk' } });
  if (reg.status !== 201) throw new Error(reg.text);
  const plain = await server.call('PUT', '/api/v4/media/feeder/plain/other.png', { key, body: await syntheticPhoto(22), headers: { 'content-type': 'image/png' } });
  if (plain.status !== 201) throw new Error(plain.text);
});
test.after.always(async () => server?.close());

test.serial('a third-party source feeds sightings; the pipeline identifies, detects and records matches', async (t) => {
  // The published copy: cropped, resized and recompressed.
  const meta = await sharp(marked).metadata();
  const copy = await sharp(marked)
    .extract({ left: 60, top: 40, width: Math.round(meta.width! * 0.8), height: Math.round(meta.height! * 0.8) })
    .resize({ width: 400 })
    .jpeg({ quality: 70 })
    .toBuffer();
  const res = await feed(copy, 'https://www.news.example.fr/story', key, 41);
  t.is(res.status, 201, res.text);
  t.is(res.json.matches.length, 1);
  t.like(res.json.matches[0], { watermarked: true, created: true });

  const list = await server.call('GET', '/api/v4/matches/', { key });
  t.is(list.json.count, 1);
  t.like(list.json.results[0], { watermarked: true, sessions: [41], media: { path: '/feeder/marked/photo.png' }, site: { domain: 'example.fr', country: 'FR' } });
  t.is(list.json.results[0].page.url, 'https://www.news.example.fr/story');

  // The recorder wrote match.created to the outbox; a job delivers it to the listeners.
  await until(() => events.length >= 1, 'match.created delivered');
  const hook = await server.call('POST', '/api/v4/account/webhooks/', { key, json: { url: 'https://hooks.example.com/in', events: ['match.created', 'match.updated'] } });
  t.is(hook.status, 201, hook.text);

  const again = await feed(copy, 'https://www.news.example.fr/story', key, 42);
  t.false(again.json.matches[0].created, 'a repeated sighting updates the match');
  await until(() => events.length >= 2, 'match.updated delivered');
  t.deepEqual(events.map((e) => [e.type, e.data.id]), [['match.created', res.json.matches[0].matchId], ['match.updated', res.json.matches[0].matchId]]);
  t.like(events[1]!.data, { kind: 'web', watermarked: true, session_id: 42, page_url: 'https://www.news.example.fr/story' });
  const updated = await server.call('GET', '/api/v4/matches/', { key });
  t.is(updated.json.count, 1);
  t.deepEqual(updated.json.results[0].sessions, [41, 42]);
  await until(async () => (await server.call('GET', `/api/v4/account/webhooks/${hook.json.id}/deliveries/`, { key })).json.count >= 1, 'the webhook delivery');
  const log = await server.call('GET', `/api/v4/account/webhooks/${hook.json.id}/deliveries/`, { key });
  t.is(log.json.count, 1, 'one delivery: the repeated sighting (the first came before the endpoint existed)');
  t.like(log.json.results[0].payload, {
    type: 'match.updated',
    data: { id: updated.json.results[0].id, kind: 'web', source: 'partner-feed', watermarked: true, page_url: 'https://www.news.example.fr/story', session_id: 42, site: { domain: 'example.fr', country: 'FR' }, host: 'www.news.example.fr' },
  });

  const v3 = await server.call('GET', '/api/v3/matches/web/?session_id=42', { key });
  t.is(v3.json.results[0].query_width, 400);
  t.is(v3.json.results[0].query_format, 'jpeg');
  // The web match's image is the file as it was seen, first found at the first sighting.
  const image = v3.json.results[0].image;
  t.like(image, { type: 'web', url: 'https://www.news.example.fr/story/img.jpg', width: 400, format: 'jpeg', page_url: 'https://www.news.example.fr/story' });
  t.is(image.md5, createHash('md5').update(copy).digest('hex'));
  t.is(image.crawl_date, v3.json.results[0].created);
});

test.serial('a credit line naming the account gives a credit match, with or without a pixel match; v4 lists media matches only', async (t) => {
  const account = await server.createAccount('lumiere');
  const unrelated = await sharp(await syntheticPhoto(77)).jpeg().toBuffer();
  const post = (credit: string) =>
    server.call('POST', '/api/v4/partner-feed/sightings/', {
      key: account.apiKey,
      json: { image: dataUri(unrelated), page_url: 'https://mag.example.com/a', image_url: 'https://mag.example.com/a.jpg', credit, last_modified: '2026-11-01T10:00:00Z' },
    });
  const first = await post('© Photo: LUMIÈRE / J. Doe');
  t.is(first.status, 201, first.text);
  t.deepEqual(first.json.matches.map((m: { kind: string; mediaId: unknown }) => [m.kind, m.mediaId]), [['credit', null]]);
  t.true((await post('© Photo: LUMIÈRE / J. Doe')).json.matches.every((m: { created: boolean }) => !m.created), 'the same image on the same page is one credit match');
  t.deepEqual((await post('Photo: Studio Soleil')).json.matches, [], 'a credit naming someone else is no match');

  const credits = await server.call('GET', '/api/v3/matches/credit/', { key: account.apiKey });
  t.is(credits.json.results.length, 1);
  t.like(credits.json.results[0], {
    type: 'credit', credit: '© Photo: LUMIÈRE / J. Doe', image_url: 'https://mag.example.com/a.jpg', page_url: 'https://mag.example.com/a',
    image: { type: 'web', credit: '© Photo: LUMIÈRE / J. Doe', last_modified_date: '2026-11-01T10:00:00.000Z' },
  });
  t.is((await server.call('GET', '/api/v4/matches/', { key: account.apiKey })).json.count, 0);
  t.is((await server.call('GET', '/api/v3/matches/credit/', { key })).json.results.length, 0, 'other accounts see none of it');
});

test.serial('the unmarked original of a watermarked media is matched but not watermarked; unrelated images match nothing', async (t) => {
  const unmarked = await feed(await sharp(original).jpeg({ quality: 85 }).toBuffer(), 'https://blog.example.org/post');
  t.is(unmarked.json.matches.length, 1);
  t.false(unmarked.json.matches[0].watermarked);
  const unrelated = await feed(await sharp(await syntheticPhoto(99)).jpeg().toBuffer(), 'https://elsewhere.example.net/');
  t.deepEqual(unrelated.json.matches, []);
  const other = await server.createAccount('otherfeeder');
  const cross = await feed(await sharp(marked).jpeg().toBuffer(), 'https://x.example.com/', other.apiKey);
  t.deepEqual(cross.json.matches, [], 'another account\'s media are never candidates');
});

test.serial('deleted media are never matched again', async (t) => {
  t.is((await server.call('DELETE', '/api/v4/media/feeder/marked/photo.png', { key })).status, 204);
  const res = await feed(await sharp(marked).jpeg().toBuffer(), 'https://www.news.example.fr/later');
  t.deepEqual(res.json.matches, []);
  t.is((await server.call('GET', '/api/v4/matches/?media.path=/feeder/marked', { key })).json.count, 0);
});
